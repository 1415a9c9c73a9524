package dev.tether;

import java.net.SocketAddress;
import java.util.Map;

/**
 * Sees each logical call a {@link Tether} client makes: its start, each attempt the runtime sends
 * to a server (retries and hedges included), and its end. Registered with {@link
 * Tether.Builder#clientInterceptor}; without one, a call allocates nothing more and pays a null
 * check where it starts, where its request is encoded and where it ends.
 *
 * <p>{@link #interceptCall} runs on the caller's thread before the first attempt and returns the
 * {@link Listener} of that call (or null to watch nothing more). A listener's methods run on Tether
 * threads (an event loop, the control executor, the caller's thread): they must be quick, must not
 * block, and must be thread-safe, since a hedged call's attempts run at once. What a listener
 * throws is logged and ignored: it never changes the call.
 */
@FunctionalInterface
public interface ClientInterceptor {

  /** A logical call starts; returns what hears of its attempts and its end, or null. */
  Listener interceptCall(Call call);

  /** What a logical call is, as its proxy makes it. */
  interface Call {
    /** The proxy's identity: the service the call goes to. */
    String service();

    String operation();

    boolean isIdempotent();

    boolean isOneway();

    /**
     * The metadata the proxy attaches ({@code proxy.withMetadata}), before any attempt adds to it.
     */
    Map<String, String> metadata();

    /**
     * The wire protocol the call goes out in: {@code "tether"} for Tether's own, or the proxy's
     * other protocol (such as {@code "grpc"} for the calls of a gRPC channel).
     */
    default String protocol() {
      return "tether";
    }
  }

  /** Hears of one call's attempts and its end. */
  interface Listener {
    /**
     * An attempt is about to be sent on a connection; its request is encoded after this returns, so
     * what {@link AttemptStart#putMetadata} adds travels with this attempt (and only it).
     */
    default void onAttempt(AttemptStart attempt) {}

    /**
     * The call ended, once: {@code failure} is null when it succeeded, else the exception the
     * caller sees (a {@link TetherException} or a {@link
     * java.util.concurrent.CancellationException}).
     */
    default void onEnd(Throwable failure) {}
  }

  /** One attempt of a call, as it leaves for a server. */
  interface AttemptStart {
    /** 1 for the first attempt, then 2, 3, ... across retries and hedges. */
    int number();

    /**
     * Why this attempt was made: null for the first; for a retry the {@link Attempt.Outcome} name
     * of the attempt that failed before it (e.g. {@code "LOST_AFTER_SEND"}); {@code "HEDGE"} for a
     * hedge sent while an earlier attempt was still waiting.
     */
    String reason();

    /** The endpoint in grammar form, e.g. {@code "tcp -h 127.0.0.1 -p 7000"}. */
    String endpoint();

    /**
     * The server's address as the connection resolved it (an {@code InetSocketAddress} over tcp,
     * ssl and udp).
     */
    SocketAddress serverAddress();

    /**
     * Adds a header to this attempt's request, read by the server from {@link
     * CallContext#metadata()}.
     */
    void putMetadata(String key, String value);
  }
}
