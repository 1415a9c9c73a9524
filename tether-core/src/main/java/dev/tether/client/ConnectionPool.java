package dev.tether.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * The runtime's open connections by {@link ConnectionKey}. Callers asking for the same key at
 * the same time get the same connection, so concurrent first calls share one connection attempt.
 * A closed or draining connection is replaced on the next request for its key.
 */
public final class ConnectionPool {
  private final ConcurrentHashMap<ConnectionKey, RequestChannel> connections = new ConcurrentHashMap<>();
  private final BiFunction<Candidate, ConnectionKey, RequestChannel> factory;

  /** @param factory makes a not-yet-started connection for a candidate and key */
  ConnectionPool(BiFunction<Candidate, ConnectionKey, RequestChannel> factory) {
    this.factory = factory;
  }

  /** A usable connection for the key, or null. */
  public RequestChannel existing(ConnectionKey key) {
    RequestChannel c = connections.get(key);
    return c != null && c.isUsable() ? c : null;
  }

  /**
   * The usable connection for the candidate's key, opening one when there is none. The returned
   * connection may still be connecting: wait on {@link RequestChannel#ready()}.
   */
  RequestChannel obtain(Candidate candidate, String connectionId) {
    ConnectionKey key = candidate.key(connectionId);
    RequestChannel[] created = new RequestChannel[1];
    RequestChannel c = connections.compute(key, (k, old) -> {
      if (old != null && old.isUsable()) {
        return old;
      }
      created[0] = factory.apply(candidate, k);
      return created[0];
    });
    // Started outside compute: a connect that fails at once removes itself from this map.
    if (created[0] != null) {
      created[0].connect();
    }
    return c;
  }

  /** Forgets a connection that closed, unless another already replaced it. */
  void remove(ConnectionKey key, RequestChannel connection) {
    connections.remove(key, connection);
  }

  /** A snapshot of every connection the pool holds. */
  public List<RequestChannel> all() {
    return new ArrayList<>(connections.values());
  }

  /**
   * Lets every connection finish its pending calls and close, waiting at most
   * {@code maxWaitMillis}; whatever is still open then is closed at once.
   */
  void drainAll(long maxWaitMillis) {
    List<io.netty.util.concurrent.Future<?>> closing = new ArrayList<>();
    for (RequestChannel c : all()) {
      closing.add(c.drain());
    }
    long deadline = System.nanoTime() + maxWaitMillis * 1_000_000;
    for (io.netty.util.concurrent.Future<?> f : closing) {
      f.awaitUninterruptibly(Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
    }
    for (RequestChannel c : all()) {
      c.close().awaitUninterruptibly(1_000);
    }
  }
}
