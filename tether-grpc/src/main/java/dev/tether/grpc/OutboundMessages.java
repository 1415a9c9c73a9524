package dev.tether.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The responses of one call on their way out: each framed as a gRPC message (gzip when chosen), and
 * counted from the moment the service hands it over until it is written to the socket. The call is
 * ready while fewer than {@link #READY_THRESHOLD} such bytes wait, whichever thread the service
 * runs on, so a service that sends while ready never queues more than that for a slow client.
 */
final class OutboundMessages<RespT> {
  /** Bytes that may wait before the call stops being ready (grpc-java's default). */
  static final int READY_THRESHOLD = 32 * 1024;

  private static final int PREFIX = 5;

  private final MethodDescriptor<?, RespT> method;
  private final boolean clientAcceptsGzip;

  /** Told (on the event loop) each time the waiting bytes fall back under the threshold. */
  private final Runnable readyAgain;

  /** Handed over by the service, not yet written: grows on its thread, shrinks on the loop. */
  private final AtomicLong waiting = new AtomicLong();

  /** The service chose gzip for its responses (and the client accepts it). */
  private volatile boolean compressResponses;

  /** The service's per-message switch; on unless it turns it off. */
  private volatile boolean compressMessages = true;

  OutboundMessages(
      MethodDescriptor<?, RespT> method, boolean clientAcceptsGzip, Runnable readyAgain) {
    this.method = method;
    this.clientAcceptsGzip = clientAcceptsGzip;
    this.readyAgain = readyAgain;
  }

  /**
   * The message as one length-prefixed gRPC frame, counted as waiting until {@link #settled} says
   * it left (or never will).
   */
  byte[] take(RespT message) {
    byte[] serialized;
    try (InputStream in = method.streamResponse(message)) {
      serialized = in.readAllBytes();
    } catch (IOException e) {
      throw Status.INTERNAL
          .withDescription("cannot serialize the response")
          .withCause(e)
          .asRuntimeException();
    }
    boolean compress = compressResponses && compressMessages;
    byte[] bytes = compress ? Gzip.compress(serialized) : serialized;
    byte[] frame = new byte[PREFIX + bytes.length];
    frame[0] = (byte) (compress ? 1 : 0);
    frame[1] = (byte) (bytes.length >>> 24);
    frame[2] = (byte) (bytes.length >>> 16);
    frame[3] = (byte) (bytes.length >>> 8);
    frame[4] = (byte) bytes.length;
    System.arraycopy(bytes, 0, frame, PREFIX, bytes.length);
    waiting.addAndGet(frame.length);
    return frame;
  }

  /**
   * On the loop: {@code bytes} of what {@link #take} framed were written, failed or were dropped.
   * Crossing back under the threshold is told exactly once per crossing, so a service that saw "not
   * ready" before it always hears of it after.
   */
  void settled(int bytes) {
    long after = waiting.addAndGet(-bytes);
    if (after < READY_THRESHOLD && after + bytes >= READY_THRESHOLD) {
      readyAgain.run();
    }
  }

  boolean underThreshold() {
    return waiting.get() < READY_THRESHOLD;
  }

  /** Whether the responses' headers name gzip. */
  boolean compressed() {
    return compressResponses;
  }

  /**
   * "gzip" compresses the responses when the client accepts gzip (else they go as they are, which
   * gRPC allows); "identity" leaves them alone.
   */
  void setCompression(String compressor) {
    if (Gzip.NAME.equals(compressor)) {
      compressResponses = clientAcceptsGzip;
    } else if ("identity".equals(compressor)) {
      compressResponses = false;
    } else {
      throw new IllegalArgumentException("unsupported compressor: " + compressor);
    }
  }

  void setMessageCompression(boolean enabled) {
    compressMessages = enabled;
  }
}
