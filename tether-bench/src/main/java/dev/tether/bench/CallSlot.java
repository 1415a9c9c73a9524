package dev.tether.bench;

import java.util.Arrays;
import org.HdrHistogram.Histogram;

/**
 * One closed-loop caller: it keeps exactly one call outstanding and issues the next one from the
 * completion of the previous, on whatever thread the system completes calls.
 *
 * <p>Because a slot never has two calls in flight, its fields are written by one thread at a time,
 * each hand-over ordered by the call itself; the driver reads them only after {@link
 * RunControl#awaitAllStopped}. So the hot path has no lock, no atomic and no allocation of its own:
 * a clock read, a volatile read of the phase and a histogram increment.
 */
final class CallSlot implements ResponseHandler {

  /** Latencies in nanoseconds; auto-resizing so that a slot costs memory only for what it sees. */
  private final Histogram latencyNanos = new Histogram(3);

  private final BenchSystem system;
  private final byte[] payload;
  private final RunControl control;
  private final NanoClock clock;

  private long startedNanos;
  private long measuredCalls;
  private boolean contentChecked;

  /** Non-null once a call failed; the slot then stops. */
  private Throwable failure;

  CallSlot(BenchSystem system, byte[] payload, RunControl control, NanoClock clock) {
    this.system = system;
    this.payload = payload;
    this.control = control;
    this.clock = clock;
  }

  /** Issues the slot's first call; the rest follow from the completions. */
  void start() {
    issueCall();
  }

  private void issueCall() {
    startedNanos = clock.nanoTime();
    system.call(payload, this);
  }

  @Override
  public void onResponse(byte[] response) {
    long latency = clock.nanoTime() - startedNanos;
    if (!isEcho(response)) {
      onFailure(
          new IllegalStateException(
              "response of "
                  + response.length
                  + " bytes is not the echo of the "
                  + payload.length
                  + "-byte request"));
      return;
    }
    switch (control.phase()) {
      case WARMUP -> issueCall();
      case MEASURE -> {
        latencyNanos.recordValue(latency);
        measuredCalls++;
        issueCall();
      }
      case STOP -> control.slotStopped();
    }
  }

  @Override
  public void onFailure(Throwable cause) {
    failure = cause;
    control.slotStopped();
  }

  /** Lengths always match; the bytes themselves are compared on the slot's first response. */
  private boolean isEcho(byte[] response) {
    if (response.length != payload.length) {
      return false;
    }
    if (contentChecked) {
      return true;
    }
    contentChecked = true;
    return Arrays.equals(response, payload);
  }

  Histogram latencyNanos() {
    return latencyNanos;
  }

  long measuredCalls() {
    return measuredCalls;
  }

  /** The failure that stopped this slot, or null when it ran to the end. */
  Throwable failure() {
    return failure;
  }
}
