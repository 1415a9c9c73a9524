package dev.tether.client;

import dev.tether.Connection;
import dev.tether.ConnectionState;
import dev.tether.Topology;
import dev.tether.observe.ConnectionStatus;
import io.netty.util.concurrent.Future;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A connection as the invocation path sees it: something that takes requests. Stream connections
 * multiplex twoway calls; datagram ones only send. Users never hold one: they get a {@link
 * Connection} snapshot of it.
 */
public interface RequestChannel {
  /**
   * The connection's number, unique in this JVM: what its {@link Connection} snapshots are known
   * by.
   */
  long id();

  /**
   * A read-only snapshot of this connection now, as {@code proxy.connection()} hands out; any
   * thread.
   */
  Connection snapshot();

  /** The peer's address: an InetSocketAddress for tcp, ssl and udp. */
  SocketAddress remoteAddress();

  /** The connection id it was opened for; "" by default. */
  String connectionId();

  /** The transport timeout it was opened with, or null when infinite. */
  Duration timeout();

  /**
   * True once a replacement took this connection's place for its maximum age: a proxy that cached
   * it chooses among its endpoints again rather than reuse whichever is pooled. Any thread.
   */
  default boolean wasRotated() {
    return false;
  }

  /** Its replacement is ready and takes the new calls; called on the control executor. */
  default void markRotated() {}

  /** True for a connection opened beside its key's own under load. */
  default boolean isExtra() {
    return false;
  }

  /** Its state now; a volatile read, safe from any thread. */
  ConnectionState state();

  boolean isSecure();

  /** The transport name, e.g. "tcp". */
  String transport();

  /**
   * The latest cluster view the server announced, or null when it announced none (datagram
   * connections never hear one); safe from any thread.
   */
  default Topology topology() {
    return null;
  }

  /** Starts opening the connection; called once, by the pool. */
  void connect();

  /** Hands the invocation to this connection; safe from any thread. */
  void send(CallAttempt invocation);

  /** True while new requests may be sent on it. */
  boolean isUsable();

  /** Completes with this connection once it can carry requests, or fails with why it cannot. */
  CompletableFuture<RequestChannel> ready();

  ConnectionKey key();

  /**
   * Calls sent on this connection and not answered yet, by any proxy; a racy read, for balancing.
   */
  default int outstandingRequests() {
    return 0;
  }

  /**
   * False while more than the high-water mark (1 MiB) of written bytes waits for the server to read
   * it; new calls then wait in the connection's queue, unwritten, until it drops below 512 KiB. A
   * racy read, for spreading calls over connections.
   */
  default boolean isWritable() {
    return true;
  }

  /** Bytes that may still be written before the connection turns unwritable; 0 while it is. */
  default long bytesBeforeUnwritable() {
    return Long.MAX_VALUE;
  }

  /** A snapshot of this connection, taken on the thread that owns it. */
  CompletableFuture<ConnectionStatus> status();

  /**
   * Writes a proxy's queued batch calls as BATCH frames (one datagram on udp), on this channel's
   * loop. Completes once every frame was written; fails with {@link dev.tether.BatchLostException}
   * naming how many of the calls were not.
   */
  CompletableFuture<Void> sendBatch(List<? extends CallAttempt> calls);

  /**
   * The attempt numbered {@code attempt} of the call timed out (any thread): if it still waits here
   * for its answer, forget it, tell the server, and let the call decide what follows.
   */
  default void timeOutAttempt(CallAttempt invocation, int attempt) {}

  /**
   * Writing a call failed, so its frame may have left in part: the connection is broken and closes;
   * its calls are decided as it does. On the connection's loop.
   */
  default void onWriteFailed(Throwable cause) {}

  /** Forgets a call that gave up waiting (invocation timeout); the connection stays open. */
  default void abandon(CallAttempt invocation) {}

  /**
   * Takes no new calls, closes once pending ones are answered; the future completes when closed.
   */
  default Future<?> drain() {
    return close();
  }

  /** Completes when the connection has closed, for whatever reason. */
  Future<?> closeFuture();

  /** Closes at once; pending calls fail as a lost connection. The future completes when closed. */
  Future<?> close();

  /**
   * The channel among {@code lanes} with the fewest calls in flight that is usable and past its
   * handshake (any thread, racy reads); {@code fallback} when none is. Ties go to the earlier lane.
   * A lane still handshaking (the key's own connection dialled again after a loss) has no call in
   * flight and would look the least loaded, but a call written behind its HELLO waits for a server
   * that may never answer, and once written a non-idempotent call could not move on.
   */
  static <C extends RequestChannel> C leastLoaded(C[] lanes, C fallback) {
    C best = null;
    int bestLoad = Integer.MAX_VALUE;
    for (C lane : lanes) {
      if (lane.isUsable() && lane.ready().isDone()) {
        int load = lane.outstandingRequests();
        if (load < bestLoad) {
          best = lane;
          bestLoad = load;
        }
      }
    }
    return best != null ? best : fallback;
  }
}
