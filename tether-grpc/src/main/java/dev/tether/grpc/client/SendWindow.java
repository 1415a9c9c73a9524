package dev.tether.grpc.client;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a stream's caller sent that has not left for the wire yet: messages waiting for the stream
 * to be accepted, for the connection's event loop, for the HTTP/2 stream's send window (the
 * server's flow control) or for the socket to take them. While that is below gRPC's on-ready
 * threshold the call is ready ({@code ClientCall.isReady()}); when written bytes bring it back
 * below, the caller hears {@code onReady()}. Thread-safe: the caller adds, the event loop takes
 * away.
 */
final class SendWindow {
  /** As grpc-java's: what may wait unsent before the caller is told to hold on. */
  static final int READY_THRESHOLD = 32 * 1024;

  private final AtomicLong pendingBytes = new AtomicLong();
  private final Runnable onReadyAgain;

  SendWindow(Runnable onReadyAgain) {
    this.onReadyAgain = onReadyAgain;
  }

  /** The caller hands over a message of {@code wireBytes}, its prefix included. */
  void onSending(int wireBytes) {
    pendingBytes.addAndGet(wireBytes);
  }

  /**
   * {@code wireBytes} of a message left for the wire, or were dropped with their stream; the caller
   * hears it when this made room again.
   */
  void onSent(int wireBytes) {
    long after = pendingBytes.addAndGet(-wireBytes);
    if (after < READY_THRESHOLD && after + wireBytes >= READY_THRESHOLD) {
      onReadyAgain.run();
    }
  }

  /** True while the caller may send without piling up more than the threshold. */
  boolean hasRoom() {
    return pendingBytes.get() < READY_THRESHOLD;
  }
}
