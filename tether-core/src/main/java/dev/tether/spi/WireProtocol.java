package dev.tether.spi;

import dev.tether.CallContext;
import dev.tether.ExecutionMode;
import dev.tether.ServerCallObserver;
import dev.tether.observe.TetherEvent;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;

/**
 * A protocol a server speaks on its stream endpoints beside Tether's own, chosen per connection by
 * the first bytes the client sends (its preface). Registered with {@code
 * TetherServer.Builder.wireProtocol}; one instance serves every connection of the server, from any
 * event loop, so it must be thread-safe.
 */
public interface WireProtocol {
  /**
   * The bytes a client of this protocol sends first; must differ from Tether's preface ({@code
   * "TETH"}) within its first four bytes. The server decides as soon as the bytes read so far fit
   * one protocol only, so the protocol's own handlers must still check the rest.
   */
  byte[] preface();

  /**
   * The protocol's name in status snapshots, meters and events (such as {@code "grpc"}); by default
   * the class's simple name in lower case.
   */
  default String name() {
    return getClass().getSimpleName().toLowerCase(Locale.ROOT);
  }

  /**
   * The protocol's ALPN name under TLS (gRPC's is {@code "h2"}), which a server with TLS then
   * accepts in its handshake and which picks this protocol for the connection; null (the default)
   * for none. Clients that name no ALPN protocol, as Tether's own do not, are chosen by their first
   * bytes as over tcp.
   */
  default String applicationProtocol() {
    return null;
  }

  /**
   * Takes over a connection whose first bytes matched {@link #preface()}: adds this protocol's
   * handlers to the channel's pipeline. Called once on the channel's event loop; the bytes read so
   * far are fired into the pipeline right after this returns, and the channel reads on.
   */
  void serve(Channel channel, Host server);

  /**
   * The server began its graceful drain ({@code shutdownGracefully}): stop taking new work on this
   * protocol's connections, let what runs finish, close them. The server waits for the returned
   * future (or its grace deadline) before it closes whatever is left. By default the connections
   * are left to close with the server.
   */
  default CompletableFuture<Void> drain() {
    return CompletableFuture.completedFuture(null);
  }

  /** What the server offers the connections of another protocol; thread-safe. */
  interface Host {
    /** Where the server runs service code: its calls of this protocol should run there too. */
    ExecutionMode executionMode();

    /**
     * The executor service code runs on in every mode but {@link ExecutionMode#DIRECT} (then null:
     * the connection's event loop runs it).
     */
    Executor executor();

    /** The most requests one connection may have running at once. */
    int maxConcurrentRequests();

    /** The server's clock: deadlines are read from it. */
    Ticker ticker();

    /** The server's scheduler: deadlines are kept by it. */
    Scheduler scheduler();

    /**
     * How long a new connection may take to finish its protocol's handshake ({@code
     * tether.server.handshakeTimeout}, TLS and the preface included) before the server closes it;
     * zero for no limit.
     */
    Duration handshakeTimeout();

    /**
     * One new connection's maximum age ({@code tether.server.maxConnectionAge}, drawn within ±10%
     * of the setting, so connections opened together do not all move at once): after it the
     * protocol tells its client to move on, as gracefully as it can, and lets running calls finish;
     * zero for never.
     */
    default Duration drawConnectionAge() {
      return Duration.ZERO;
    }

    /**
     * How long an aged connection is still served ({@code tether.server.maxConnectionAgeGrace})
     * before the protocol closes it; zero: until its client closes it or its calls end.
     */
    default Duration connectionAgeGrace() {
      return Duration.ZERO;
    }

    /**
     * How long a connection may read nothing before the server closes it ({@code
     * tether.server.readerIdle}); a protocol whose clients do not ping as Tether's do applies it as
     * its own rules allow (gRPC: only while no call runs). Zero for never.
     */
    default Duration readerIdle() {
      return Duration.ZERO;
    }

    /**
     * Counts {@code channel}, a connection of this protocol, in with the server's own: in {@code
     * server.status()} (under the protocol's {@link #name()}), its {@code maxConnections} and its
     * events (ACCEPTED now). The server closes the channel itself when it turns the connection away
     * (it is draining, or serves {@code maxConnections} already), and counts it out when it closes.
     * Call once, on the channel's event loop, from {@link #serve}.
     */
    HostedConnection admit(Channel channel);

    /**
     * The server's own Tether service of this name, for another protocol to serve its operations
     * (gRPC: as the service named by its identity, whose messages are the payload bytes); null when
     * the server has none.
     */
    TetherService tetherService(String name);

    /**
     * The server's own Tether stream service of this name, for another protocol to open its streams
     * (gRPC: as streaming methods of the service named by its identity); null when the server has
     * none.
     */
    default TetherStreamService tetherStreamService(String name) {
      return null;
    }

    /**
     * The names of the server's own Tether services, stream services too: what another protocol
     * serves under them (gRPC's health lists them); empty by default.
     */
    default Set<String> tetherServiceNames() {
      return Set.of();
    }
  }

  /** One of the server's own Tether services, as another protocol's calls reach it. */
  interface TetherService {
    /** False when the service certainly has no such operation. */
    boolean hasOperation(String operation);

    /**
     * Runs {@code operation} with {@code payload} on the calling thread (a service thread, as the
     * server's execution mode placed the call) and returns the answer's bytes, or a {@code
     * CompletionStage<byte[]>} of them; throws what the service threw. Calls the service makes on
     * this thread inherit {@code context}'s deadline, as they do in a Tether call.
     */
    Object call(String operation, byte[] payload, CallContext context) throws Exception;
  }

  /** One of the server's own Tether stream services, as another protocol's streams reach it. */
  interface TetherStreamService {
    /** False when the service certainly has no stream of that name. */
    boolean hasOperation(String operation);

    /**
     * Opens a stream on the calling thread (a service thread): the cold publisher of the items to
     * send, which the caller subscribes to and asks items of as its client can take them. {@code
     * inbound} publishes what the client sends on a bidirectional stream; cancelling the
     * subscription tells the service the client went away. Throws what the service threw.
     */
    Flow.Publisher<byte[]> open(
        String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext context)
        throws Exception;
  }

  /**
   * One connection of another protocol as the server counts it. Its methods are called on the
   * connection's event loop, except {@link #executor()} and {@link #lazyExecutor()}, which any
   * thread may use.
   */
  interface HostedConnection {
    /**
     * Where this connection's service code runs, as the server's execution mode says: its event
     * loop (DIRECT), the server's bounded run queue shared with Tether's calls (EXECUTOR), one lane
     * of this connection on that queue (SERIALIZED: one task of the connection at a time, in
     * order), or a virtual thread per task (VIRTUAL_THREADS). Work it cannot take now is offered
     * again shortly; it is dropped only when the server closes.
     */
    Executor executor();

    /**
     * Where this connection's service work that may wait a little runs (a call's last notification,
     * whose caller already has its answer): as {@link #executor()}, except that on the server's run
     * queue it wakes no thread of its own but runs with the next work one is woken for, or at most
     * about 20 ms later. Any thread may use it.
     */
    default Executor lazyExecutor() {
      return executor();
    }

    /**
     * A call arrived and will run: it counts in flight (in {@code server.status()}) until {@link
     * HostedCall#ended}. {@code call} is what the server's interceptors and call observer see.
     */
    HostedCall callStarted(CallContext call);

    /** Reports an event about this connection (GOAWAY_SENT, PROTOCOL_ERROR...). */
    void emit(TetherEvent.Kind kind, String detail, Throwable cause);

    /**
     * How the protocol turns the connection away when the server refuses it (it is draining, or
     * serves {@code maxConnections} already): {@code refuse} runs on the connection's event loop
     * instead of a plain close, so the protocol may say why first (gRPC: GOAWAY), and must close
     * the channel. Set it on the event loop, in {@link WireProtocol#serve}; without it the server
     * closes the channel.
     */
    default void onRefused(Runnable refuse) {}
  }

  /**
   * One call of another protocol under the server's oversight: its call observer (tracing) and its
   * interceptors see it as they see Tether's own calls.
   */
  interface HostedCall {
    /**
     * On the service's thread, before the service first sees the call: the call observer hears it
     * start, then the interceptors run. Returns null to let it run, else what refused it ({@link
     * dev.tether.PermissionDeniedException}, or what a broken interceptor threw); the protocol then
     * ends the call with a failure without running the service.
     */
    Throwable intercept();

    /**
     * On the service's thread around each piece of the service's work (the observer's scope, such
     * as its span made current); null for nothing. Close it on the same thread.
     */
    ServerCallObserver.Scope enter();

    /**
     * The call ended, once, on the connection's event loop: it leaves the in-flight count and the
     * observer hears {@code status} (the protocol's own name for it, {@code "OK"} for success) and
     * {@code failure} (what the service threw, or null).
     */
    void ended(String status, Throwable failure);
  }
}
