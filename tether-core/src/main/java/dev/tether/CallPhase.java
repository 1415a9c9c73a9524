package dev.tether;

import java.time.Duration;
import java.util.Objects;

/**
 * One phase of a call's clock, as {@link InvocationTimeoutException#timeline()} lists them: what
 * the call waited for, where, and for how long. Phases follow each other without gaps; their
 * elapsed times add up to the time the call had.
 *
 * @param kind what the call waited for
 * @param endpoint the endpoint concerned in grammar form ({@code "tcp -h 127.0.0.1 -p 7000"}), or
 *     null when the call had none yet
 * @param elapsed how long the phase lasted
 */
public record CallPhase(Kind kind, String endpoint, Duration elapsed) {
  public CallPhase {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(elapsed, "elapsed");
  }

  /** What a call can wait for. */
  public enum Kind {
    /** Names of its endpoints being resolved. */
    RESOLVING,
    /** A connection being opened: the transport connect, then the HELLO/WELCOME handshake. */
    CONNECTING,
    /** The endpoint's connection backing off after a failure; the next dial is its supervisor's. */
    BACKING_OFF,
    /**
     * Unsent, in a connection's backlog: the server's in-flight limit or the unsent-bytes mark was
     * reached.
     */
    WAITING_FOR_SLOT,
    /** Sent; no answer yet. */
    AWAITING_REPLY,
    /** After a failed attempt, the wait before the next round over the endpoints. */
    RETRY_DELAY
  }

  /** {@code "CONNECTING tcp -h 127.0.0.1 -p 7000 290 ms"}, as the timeout's message lists it. */
  @Override
  public String toString() {
    return kind + (endpoint == null ? "" : " " + endpoint) + " " + elapsed.toMillis() + " ms";
  }
}
