package dev.tether.observe;

/**
 * One transition of a connection, supervisor, node, invocation or server, as it happened.
 *
 * @param kind what happened
 * @param endpoint the endpoint concerned in grammar form (e.g. {@code "tcp -h 127.0.0.1 -p 7001"}),
 *     or null when none is
 * @param detail a human-readable reason
 * @param cause the failure behind it, or null
 * @param nanos when, on the runtime's Ticker
 * @param items what the stream carried, on STREAM_CLOSED and STREAM_LOST; null on every other event
 */
public record TetherEvent(
    Kind kind, String endpoint, String detail, Throwable cause, long nanos, StreamItems items) {

  /** An event that is not the end of a stream. */
  public TetherEvent(Kind kind, String endpoint, String detail, Throwable cause, long nanos) {
    this(kind, endpoint, detail, cause, nanos, null);
  }

  /**
   * The items one side of a stream handled over its whole life, across resumes.
   *
   * @param sent items this side's publisher produced for the peer (0 when this side sends none)
   * @param received items this side's subscriber was given (each once, in order)
   */
  public record StreamItems(long sent, long received) {}

  /**
   * The kinds of event: from clients, then from servers (ACCEPTED to DRAINED), then of streams
   * (both sides), then of either side's TLS reloads.
   */
  public enum Kind {
    /** A connection attempt to an endpoint started. */
    CONNECTING,
    /** A connection finished its handshake and carries calls. */
    CONNECTED,
    /** A connection attempt failed. */
    CONNECT_FAILED,
    /** A connection closed, on purpose or not; the detail says why. */
    CONNECTION_CLOSED,
    /** The server announced it is going away. */
    GOAWAY_RECEIVED,
    /** Heartbeats or the transport timeout declared the peer gone. */
    HEARTBEAT_TIMEOUT,
    /** A failed attempt of a call is tried again. */
    RETRY,
    /** A call or connection moved to another server of a cluster view. */
    REROUTE,
    /** A node's connection failed or broke: the node is skipped until it is up again. */
    NODE_DEAD,
    /**
     * A node is alive again (or for the first time): connected, or its probe call after an ejection
     * succeeded.
     */
    NODE_ALIVE,
    /**
     * A node whose connection is up but whose calls failed is out of rotation for a while; the
     * detail gives how long and the figures that decided it (failures in a row, or successes of
     * recent calls).
     */
    NODE_EJECTED,
    /**
     * A node's ejection time is over (or it reconnected after one): it takes calls again on
     * probation, and its next call decides.
     */
    NODE_READMITTED,
    /** A node runs a server version outside the proxy's range: skipped for good. */
    NODE_INCOMPATIBLE,
    /** A retry was refused because the retry budget was spent. */
    RETRY_BUDGET_EXHAUSTED,
    /**
     * A connection learned a new cluster view from its server (WELCOME, or a TOPOLOGY frame while
     * connected); the detail names the primary and alternates.
     */
    TOPOLOGY_CHANGED,
    /**
     * A connection reached its maximum age (the server's GOAWAY(MAX_AGE), or the client's own
     * {@code tether.connection.maxAge}): a replacement opens and new calls move to it once ready.
     * From a server: it sent GOAWAY(MAX_AGE) and serves the connection until its client moves. A
     * server that stops being its cluster's primary moves its connections the same way; the detail
     * says which.
     */
    CONNECTION_AGED,
    /** The replacement of an aged connection is ready: new calls go to it, the old one drains. */
    CONNECTION_ROTATED,
    /** A server accepted a connection. */
    ACCEPTED,
    /** A server sent GOAWAY on a connection. */
    GOAWAY_SENT,
    /** A draining server closed its last connection. */
    DRAINED,
    /** A stream was opened: its opening was accepted by the server (both sides emit it). */
    STREAM_OPENED,
    /** A stream whose connection broke went on over a new one, nothing lost and nothing twice. */
    STREAM_RESUMED,
    /** A stream could not go on (not resumed in time, unknown to the server, server shut down). */
    STREAM_LOST,
    /** A stream ended: completed, failed by the application, or cancelled. */
    STREAM_CLOSED,
    /** A peer broke the protocol; its connection was closed. */
    PROTOCOL_ERROR,
    /** A runtime or server built a new TLS context from its files: new connections use it. */
    TLS_RELOADED,
    /**
     * A TLS reload found files that do not build a context (a key that is not its certificate's,
     * say): the previous context stays, and the detail says why.
     */
    TLS_RELOAD_REFUSED,
    /**
     * A discovery's source answered nothing usable (an empty answer, an error): it keeps its last
     * good list for a while, or that list expired; the detail says which and for how long.
     */
    DISCOVERY_STALE
  }
}
