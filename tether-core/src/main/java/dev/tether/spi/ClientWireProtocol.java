package dev.tether.spi;

import io.netty.channel.Channel;
import java.util.Map;

/**
 * A protocol a client's connections may speak instead of Tether's own: the client-side counterpart
 * of {@link WireProtocol}. A proxy chooses it ({@code proxy.withWireProtocol(p)}); the runtime
 * still selects endpoints, owns the connections (one supervisor and one backoff per key, and the
 * protocol is part of the key), and decides retries by the at-most-once rule. The protocol only
 * frames calls on a channel the runtime opened and says what became of each. One instance serves
 * every connection, from any event loop, so it must be thread-safe.
 */
public interface ClientWireProtocol {
  /**
   * The protocol's name, e.g. {@code "grpc"}: part of every connection key, so that connections of
   * two protocols to one address are never shared.
   */
  String name();

  /**
   * The protocol as calls name it, the same for every variant {@link #name()} tells apart (a
   * liveness setting): {@code "grpc"}. A client interceptor reads it ({@code
   * ClientInterceptor.Call.protocol()}); by default the name.
   */
  default String family() {
    return name();
  }

  /**
   * Takes over a new channel (on its event loop, as it is initialized, before it connects): adds
   * this protocol's handlers after the transport's own (TLS) and returns the link the runtime sends
   * calls through. The link tells {@code connection} when calls may flow.
   */
  Link open(Channel channel, Connection connection);

  /**
   * What the runtime's connection hears from the protocol; every method on the channel's event
   * loop.
   */
  interface Connection {
    /** The endpoint as {@code host:port}, e.g. for HTTP/2's {@code :authority}. */
    String authority();

    /**
     * The runtime's clock (its injected {@link Ticker}): the protocol's timing decisions (liveness
     * pings) read it, so they run on a fake clock in tests.
     */
    Ticker ticker();

    /**
     * Runs {@code task} on the channel's event loop after {@code delayNanos} of the runtime's
     * scheduler; the handle cancels it, even once it fell due.
     */
    Scheduler.Cancellable schedule(Runnable task, long delayNanos);

    /** The protocol's opening is done: calls may flow. {@code summary} is for the event. */
    void onReady(String summary);

    /**
     * The peer takes no new calls on this connection (HTTP/2 GOAWAY); the calls it did take go on.
     * The link refuses ({@link Call#onRefused}) each call the peer says it never took.
     */
    void onGoingAway(String why);

    /**
     * The protocol broke (a bad frame, a failed opening): the connection closes with this cause.
     */
    void onFailed(Throwable cause);

    /**
     * The link has room again after {@link Link#hasRoom()} said no (a stream ended): calls that
     * waited for it may be sent.
     */
    void onRoom();
  }

  /**
   * What an answer says of the peer that gave it, as the outlier detection of its node group counts
   * it: the protocol maps its statuses onto these, as Tether's own are mapped.
   */
  enum Blame {
    /**
     * A good answer, or a failure that says nothing of the peer (the caller's own mistake, a status
     * the service chose to answer).
     */
    NONE,
    /**
     * The service's own failure (an exception it did not handle, a refused permission): counted
     * only as far as the peer's share of them stands out from its peers', so a request that fails
     * alike everywhere ejects none.
     */
    FAILED_ANSWER,
    /**
     * The server failed around the service (an internal error, unavailable, the deadline passed on
     * it): a streak of these, or too low a success rate, ejects the peer on its own.
     */
    NODE_FAULT
  }

  /** What the runtime asks of the protocol on one connection; every method on its event loop. */
  interface Link {
    /**
     * Sends a call. Each call ends with exactly one of its {@code on*} endings, which the link may
     * give at once or later, until the channel closes: then the runtime ends what is left.
     */
    void send(Call call);

    /** Forgets a call that no longer needs its answer, and tells the peer (a cancel). */
    void cancel(Call call);

    /** Calls the link carries now, not yet ended; for the runtime's balancing. */
    int activeCalls();

    /**
     * True while a call sent now would start at once (HTTP/2: below the peer's
     * SETTINGS_MAX_CONCURRENT_STREAMS). While it is false the runtime keeps new calls unsent and
     * may open extra connections for them; the link tells {@link Connection#onRoom()} when room
     * comes back. By default there is always room.
     */
    default boolean hasRoom() {
      return true;
    }
  }

  /**
   * One attempt of a call, as the runtime hands it to a link. The endings may come from the
   * channel's event loop only; after the first ending the others are ignored.
   */
  interface Call {
    /** The proxy's identity: the service the call goes to. */
    String service();

    String operation();

    /** The proxy's and the client interceptor's headers for this attempt. */
    Map<String, String> metadata();

    /** The request as the protocol's own caller encoded it. */
    byte[] body();

    /** Milliseconds left before the call's deadline, 0 when it has none. */
    long remainingMillis();

    /** The whole request reached the wire: from now on the peer may have run it. */
    void onWritten();

    /**
     * The peer answered; {@code body} goes to the caller as it is. An answer is never retried. It
     * says nothing against the peer: as {@link #onAnswer(byte[], Blame)} with {@link Blame#NONE}.
     */
    default void onAnswer(byte[] body) {
      onAnswer(body, Blame.NONE);
    }

    /**
     * The peer answered, and its answer {@code blame}s it as the runtime's outlier detection counts
     * it (the protocol reads its own statuses); {@code body} goes to the caller as it is, and the
     * answer is never retried.
     */
    void onAnswer(byte[] body, Blame blame);

    /**
     * The peer took the call as a stream whose outcome comes later: {@code body} goes to the caller
     * as an answer (never retried), while its node's outlier detection waits for {@link
     * #onStreamEnd}, which the link says once the stream ends, however it ends.
     */
    void onStreamAccepted(byte[] body);

    /**
     * A stream {@link #onStreamAccepted accepted} ended, and its end {@code blame}s the peer as the
     * outlier detection counts it ({@link Blame#NONE} for a stream lost or cancelled). Counted
     * once; from any thread.
     */
    void onStreamEnd(Blame blame);

    /**
     * The peer answered with a failure {@code status} (the protocol's name for it, e.g. gRPC's
     * {@code "UNAVAILABLE"}; {@code detail} its message, or null): the call fails with a {@code
     * FailedAnswerException} that carries {@code body} for the caller, and its node's outlier
     * detection hears {@code blame}. When the status is {@code retryable} (it says another server
     * may serve the call), the runtime first treats it as a failure of a server that may have run
     * the call: an idempotent call is retried elsewhere, within the retry budget, as after a lost
     * connection; a call that is not idempotent ends with the answer.
     */
    void onFailedAnswer(byte[] body, Blame blame, String status, String detail, boolean retryable);

    /**
     * The peer proved it did not run the call (a refused stream, a stream above its GOAWAY's last
     * id): the runtime may send it elsewhere, idempotent or not.
     */
    void onRefused(String why);

    /**
     * The call ended without an answer (its stream reset, the connection lost): whether it may run
     * again depends on {@link #onWritten()} having been said and on the call's idempotency.
     */
    void onLost(Throwable cause);
  }
}
