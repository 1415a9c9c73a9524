package dev.tether.client;

import dev.tether.CallPhase;
import dev.tether.Endpoint;
import dev.tether.TetherException;
import dev.tether.internal.Backoff;
import dev.tether.spi.Ticker;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The runtime's connections by {@link ConnectionKey}, each behind its {@link ConnectionSupervisor}.
 * Callers asking for the same key at the same time get the same connection, so concurrent first
 * calls share one connection attempt. The map only finds supervisors; each owns its own state.
 */
public final class ConnectionPool {
  private final ConcurrentHashMap<ConnectionKey, ConnectionSupervisor> supervisors =
      new ConcurrentHashMap<>();
  private final SupervisorHost host;
  private final Backoff reconnect;
  private final Ticker ticker;

  ConnectionPool(SupervisorHost host, Backoff reconnect, Ticker ticker) {
    this.host = host;
    this.reconnect = reconnect;
    this.ticker = ticker;
  }

  /** The supervisor of the candidate's key, made on first use. */
  ConnectionSupervisor supervisor(Candidate candidate, String connectionId) {
    ConnectionKey key = candidate.key(connectionId);
    return supervisors.computeIfAbsent(
        key, k -> new ConnectionSupervisor(host, k, candidate, reconnect));
  }

  /** The supervisor of a key, if one was made. */
  Optional<ConnectionSupervisor> supervisorOf(ConnectionKey key) {
    return Optional.ofNullable(supervisors.get(key));
  }

  /**
   * {@code candidates} with those whose key backs off (its last dial failed or its connection
   * broke) moved to the end, in order: a call meets them only when nothing healthier is left, and
   * then fails fast or waits for their supervisor's next attempt. The same list when none is
   * backing off.
   */
  List<Candidate> healthyFirst(List<Candidate> candidates, String connectionId) {
    List<Candidate> last = null;
    for (Candidate c : candidates) {
      if (isBackingOff(c, connectionId)) {
        if (last == null) {
          last = new ArrayList<>(2);
        }
        last.add(c);
      }
    }
    if (last == null || last.size() == candidates.size()) {
      return candidates;
    }
    List<Candidate> ordered = new ArrayList<>(candidates.size());
    for (Candidate c : candidates) {
      if (!last.contains(c)) {
        ordered.add(c);
      }
    }
    ordered.addAll(last);
    return ordered;
  }

  private boolean isBackingOff(Candidate c, String connectionId) {
    ConnectionSupervisor s = supervisors.get(c.key(connectionId));
    return s != null && s.isBackingOff();
  }

  /** The client's TLS credentials changed: secure keys forget failures under the old ones. */
  void onCredentialsChanged() {
    for (ConnectionSupervisor s : supervisors.values()) {
      s.onCredentialsChanged();
    }
  }

  /**
   * What a call without a connection at its deadline waited for, among the keys of {@code
   * endpoints}: the first one connecting, else one backing off; null when none is. Control
   * executor.
   */
  CallTimeline.Wait waitAmong(List<Endpoint> endpoints) {
    CallTimeline.Wait backingOff = null;
    for (ConnectionSupervisor s : supervisors.values()) {
      if (!endpoints.contains(s.endpoint())) {
        continue;
      }
      String endpoint = s.endpoint().toString();
      if (s.state() == ConnectionSupervisor.State.CONNECTING) {
        boolean helloSent = s.current() instanceof BaseConnection b && b.transportConnected();
        return new CallTimeline.Wait(
            CallPhase.Kind.CONNECTING,
            endpoint,
            helloSent ? "HELLO not answered" : "transport connect not finished");
      }
      if (s.state() == ConnectionSupervisor.State.TRANSIENT_FAILURE && backingOff == null) {
        backingOff = new CallTimeline.Wait(CallPhase.Kind.BACKING_OFF, endpoint, s.backoffNote());
      }
    }
    return backingOff;
  }

  /** A usable connection for the key, or null. */
  public RequestChannel existing(ConnectionKey key) {
    ConnectionSupervisor s = supervisors.get(key);
    return s == null ? null : s.usable();
  }

  /**
   * True when {@code c} is the connection its key's supervisor opened (not an extra, not a
   * stranger).
   */
  boolean isSupervisorsOwn(RequestChannel c) {
    ConnectionSupervisor s = supervisors.get(c.key());
    return s != null && s.current() == c;
  }

  /** Every connection open now (connecting, ready or draining). */
  public List<RequestChannel> all() {
    List<RequestChannel> out = new ArrayList<>();
    for (ConnectionSupervisor s : supervisors.values()) {
      RequestChannel c = s.current();
      // Read after the current one: a supervisor retires its connection before it moves on.
      List<RequestChannel> retired = s.retired();
      if (c != null && !retired.contains(c)) {
        out.add(c);
      }
      out.addAll(s.extras());
      out.addAll(retired);
    }
    return out;
  }

  /**
   * The runtime closes: every supervisor stops dialling, and the calls waiting for a key's next
   * attempt fail now.
   */
  void stopDialling() {
    for (ConnectionSupervisor s : supervisors.values()) {
      s.shutdown();
    }
  }

  /**
   * The event loops stopped: a connection attempt they never ended (a dial that raced the close)
   * fails now, so the calls following it end too. No loop owns the attempt any more.
   */
  void onLoopsStopped() {
    for (RequestChannel c : all()) {
      c.ready()
          .completeExceptionally(new TetherException("the Tether runtime closed while connecting"));
    }
  }

  /**
   * After {@link #stopDialling}: lets every connection finish its pending calls and close, waiting
   * at most {@code maxWaitNanos} on the runtime's ticker; whatever is still open then is closed.
   */
  void drainAll(long maxWaitNanos) {
    List<Future<?>> closing = new ArrayList<>();
    for (RequestChannel c : all()) {
      closing.add(c.drain());
    }
    long deadline = ticker.nanoTime() + maxWaitNanos;
    for (Future<?> f : closing) {
      f.awaitUninterruptibly(Math.max(0, deadline - ticker.nanoTime()), TimeUnit.NANOSECONDS);
    }
    for (RequestChannel c : all()) {
      c.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    }
  }
}
