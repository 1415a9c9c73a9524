package dev.tether.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.netty.handler.codec.http2.Http2Error;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The responses of one call on their way out: each framed as a gRPC message (gzip when chosen), and
 * counted from the moment the service hands it over until it is written to the socket. The call is
 * ready while fewer than {@link #READY_THRESHOLD} such bytes wait, whichever thread the service
 * runs on, so a service that sends while ready never queues more than that for a slow client. One
 * that ignores readiness is stopped by its connection's {@link OutboundBudget}.
 */
final class OutboundMessages<RespT> implements OutboundBudget.Sender {
  /** Bytes that may wait before the call stops being ready (grpc-java's default). */
  static final int READY_THRESHOLD = 32 * 1024;

  /**
   * How a call that {@link #take} refused ends: reset with ENHANCE_YOUR_CALM, which gRPC's clients
   * read as RESOURCE_EXHAUSTED, since trailers would wait behind the very bytes the client does not
   * read.
   */
  static final Http2Error OVERSENT = Http2Error.ENHANCE_YOUR_CALM;

  private static final int PREFIX = 5;

  private final MethodDescriptor<?, RespT> method;
  private final boolean clientAcceptsGzip;

  /** Told (on the event loop) each time the waiting bytes fall back under the threshold. */
  private final Runnable readyAgain;

  /** What all the connection's calls hold. */
  private final OutboundBudget budget;

  /** Whether the call may still send, for a send that waits for room in the budget. */
  private final BooleanSupplier open;

  /** Handed over by the service, not yet written: grows on its thread, shrinks on the loop. */
  private final AtomicLong waiting = new AtomicLong();

  /** Written or dropped since the call started; changed on the loop only. */
  private volatile long settled;

  /** The service chose gzip for its responses (and the client accepts it). */
  private volatile boolean compressResponses;

  /** The service's per-message switch; on unless it turns it off. */
  private volatile boolean compressMessages = true;

  OutboundMessages(
      MethodDescriptor<?, RespT> method,
      boolean clientAcceptsGzip,
      OutboundBudget budget,
      BooleanSupplier open,
      Runnable readyAgain) {
    this.method = method;
    this.clientAcceptsGzip = clientAcceptsGzip;
    this.budget = budget;
    this.open = open;
    this.readyAgain = readyAgain;
  }

  /**
   * The message as one length-prefixed gRPC frame, counted as waiting until {@link #settled} says
   * it left (or never will). Sent past the ready threshold while the connection holds more than its
   * budget, it waits for room ({@link OutboundBudget}); null, counting nothing, when it gave up:
   * then the call must end ({@link #OVERSENT}).
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
    if (!budget.take(frame.length, this)) {
      return null;
    }
    waiting.addAndGet(frame.length);
    return frame;
  }

  /**
   * On the loop: {@code bytes} of what {@link #take} framed were written, failed or were dropped.
   * Crossing back under the threshold is told exactly once per crossing, so a service that saw "not
   * ready" before it always hears of it after.
   */
  void settled(int bytes) {
    budget.give(bytes);
    settled += bytes;
    long after = waiting.addAndGet(-bytes);
    if (after < READY_THRESHOLD && after + bytes >= READY_THRESHOLD) {
      readyAgain.run();
      // A send of this call waiting for room may go now, as one sent while ready would.
      budget.wake();
    }
  }

  @Override
  public boolean open() {
    return open.getAsBoolean();
  }

  @Override
  public boolean ready() {
    return underThreshold();
  }

  @Override
  public long progress() {
    return settled;
  }

  /** How a call {@link #take} refused ends, for the service and the server's oversight. */
  Status oversent() {
    return Status.RESOURCE_EXHAUSTED.withDescription(
        "the service sent while its call was not ready (isReady() false), its client's connection"
            + " held "
            + budget.limit()
            + " bytes of responses not yet written, and the client read none of this call's for "
            + TimeUnit.NANOSECONDS.toMillis(budget.stallNanos())
            + " ms (or the service sent from an event loop, which cannot wait)");
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
