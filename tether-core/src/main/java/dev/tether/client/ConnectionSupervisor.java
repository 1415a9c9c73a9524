package dev.tether.client;

import dev.tether.TetherException;
import dev.tether.internal.Backoff;
import dev.tether.internal.SerialExecutor;
import dev.tether.spi.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of the connection for one {@link ConnectionKey} (DESIGN.md section 8): it opens
 * the connection when a call needs it, and after a break reconnects it in the background with one
 * backoff streak until it is up again, however it comes back. Node health and status read its
 * state instead of keeping their own. All of its state changes on the runtime's control executor.
 */
public final class ConnectionSupervisor {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");

  /** Where the key's connection is. */
  public enum State {
    /** No connection and none wanted yet, or the last one closed on purpose. */
    IDLE,
    /** A connection attempt runs. */
    CONNECTING,
    /** The connection is up and takes calls. */
    READY,
    /** The last attempt failed or the connection broke; a reconnect waits for its backoff delay. */
    TRANSIENT_FAILURE,
    /** The runtime closed; terminal. */
    SHUTDOWN
  }

  /** Hears of every state change, on the control executor. */
  @FunctionalInterface
  public interface Listener {
    void onStateChanged(ConnectionSupervisor supervisor, State state, Throwable cause);
  }

  /** What a supervisor needs of its runtime. */
  interface Host {
    SerialExecutor control();

    Scheduler.Cancellable scheduleOnControl(Runnable task, long delayNanos);

    RequestChannel newConnection(Candidate candidate, ConnectionKey key);

    java.util.Random random();

    /** How many connections a key may open beside its own under load. */
    int maxExtraConnections();
  }

  private final Host host;
  private final ConnectionKey key;
  private Candidate candidate;
  private State state = State.IDLE;
  /**
   * The connection now (connecting, ready or draining), or null. Written on the control executor
   * only; volatile so the hot path reads it from any thread without hopping.
   */
  private volatile RequestChannel current;
  private Backoff backoff;
  /**
   * True once a node group owns the key: then a closed or failed connection is always reopened.
   * Set on the control executor; volatile because a connection's loop asks whether idle close applies.
   */
  private volatile boolean keepConnected;
  private final ExtraConnections extras;
  /** Non-null only while a failure streak lasts: from the first failure until READY again. */
  private Backoff.Streak streak;
  /** Non-null only while a background reconnect is scheduled. */
  private Scheduler.Cancellable reconnect;
  /**
   * True while the key's connection broke and a background reconnect waits for its backoff delay:
   * the reconnect, not each call, tries the endpoint again. Volatile: callers read it to try
   * healthier endpoints first.
   */
  private volatile boolean backingOff;
  private final List<Listener> listeners = new ArrayList<>(1);

  ConnectionSupervisor(Host host, ConnectionKey key, Candidate candidate, Backoff backoff) {
    this.host = host;
    this.key = key;
    this.candidate = candidate;
    this.backoff = backoff;
    this.extras = new ExtraConnections(host, key, host.maxExtraConnections());
  }

  public ConnectionKey key() {
    return key;
  }

  /** The state now; read it on the control executor for a decision, anywhere for a display. */
  public State state() {
    return state;
  }

  /** The usable connection, or null; safe from any thread. */
  public RequestChannel usable() {
    RequestChannel c = current;
    return c != null && c.isUsable() ? c : null;
  }

  /** The connection now, usable or not (draining ones too); for status. */
  public RequestChannel current() {
    return current;
  }

  /** The extra connections open under load now; for status and shutdown. Any thread. */
  List<ClientConnection> extras() {
    return extras.all();
  }

  /** True while a node group keeps this key connected: idle close does not apply then. */
  boolean keepsConnected() {
    return keepConnected;
  }

  /** {@code lane} has calls waiting for a slot (any thread): move them or open an extra connection. */
  void onSaturated(ClientConnection lane) {
    host.control().execute(() -> {
      if (state != State.SHUTDOWN) {
        extras.onSaturated(lane, current, candidate);
      }
    });
  }

  /**
   * The key's connection, opening one now if there is none (a call's demand does not wait for
   * the backoff delay; its outcome moves the same streak on). Safe from any thread.
   */
  public CompletableFuture<RequestChannel> obtain(Candidate forCall) {
    RequestChannel c = usable();
    if (c != null) {
      return c.ready();
    }
    CompletableFuture<RequestChannel> result = new CompletableFuture<>();
    host.control().execute(() -> {
      RequestChannel now = usable();
      if (now == null) {
        now = openOnControl(forCall);
      }
      if (now == null) {
        result.completeExceptionally(new TetherException("the Tether runtime is closed"));
      } else {
        now.ready().whenComplete((ready, failure) -> {
          if (failure != null) {
            result.completeExceptionally(failure);
          } else {
            result.complete(ready);
          }
        });
      }
    });
    return result;
  }

  /**
   * A node group owns this key from now on: it is kept connected, reconnecting under the
   * group's backoff. Call on the control executor.
   */
  public void keepConnected(Backoff nodeBackoff, Listener listener) {
    host.control().assertInExecutor();
    keepConnected = true;
    backoff = nodeBackoff;
    listeners.add(listener);
    listener.onStateChanged(this, state, null);
  }

  /** Stops telling {@code listener} (a node group that dropped this node); call on the control executor. */
  public void removeListener(Listener listener) {
    listeners.remove(listener);
  }

  private RequestChannel openOnControl(Candidate forCall) {
    if (state == State.SHUTDOWN) {
      return null;
    }
    candidate = forCall;
    cancelReconnect();
    RequestChannel c = host.newConnection(candidate, key);
    current = c;
    extras.onPrimaryChanged(c);
    transitionTo(State.CONNECTING, null);
    c.connect();
    c.ready().whenComplete((ready, failure) -> host.control().execute(() -> onAttemptDone(c, failure)));
    return c;
  }

  private void onAttemptDone(RequestChannel c, Throwable failure) {
    if (c != current) {
      return; // a stale attempt: a newer one replaced it
    }
    if (failure == null) {
      streak = null;
      transitionTo(State.READY, null);
      return;
    }
    current = null;
    failed(failure, false);
  }

  /**
   * The connection closed (called on its loop). {@code unexpectedly}: it broke while serving,
   * rather than being closed or drained on purpose.
   */
  void onConnectionClosed(RequestChannel c, boolean unexpectedly, Throwable cause) {
    host.control().execute(() -> {
      if (c instanceof ClientConnection cc && cc.isExtra()) {
        extras.onClosed(c, current);
        return;
      }
      if (c != current || state == State.SHUTDOWN) {
        return;
      }
      current = null;
      if (unexpectedly || keepConnected) {
        failed(cause, true);
      } else {
        transitionTo(State.IDLE, cause);
      }
    });
  }

  /**
   * Enters TRANSIENT_FAILURE and, when the key reconnects on its own, schedules the streak's next
   * attempt. A key reconnects on its own once its connection broke while serving
   * ({@code startStreak}) or when a node group owns it; a first connect that fails is only the
   * caller's to report.
   */
  private void failed(Throwable cause, boolean startStreak) {
    transitionTo(State.TRANSIENT_FAILURE, cause);
    if (streak == null && (startStreak || keepConnected)) {
      streak = backoff.newStreak(host.random());
    }
    if (streak != null) {
      reconnect = host.scheduleOnControl(this::reconnectNow, streak.nextDelayNanos());
      backingOff = true;
    }
  }

  private void reconnectNow() {
    reconnect = null;
    backingOff = false;
    if (state == State.TRANSIENT_FAILURE) {
      log.debug("reconnecting to {}", candidate.endpoint());
      openOnControl(candidate);
    }
  }

  /** True while a background reconnect waits for its backoff delay after a break; any thread. */
  boolean isBackingOff() {
    return backingOff;
  }

  private void cancelReconnect() {
    backingOff = false;
    if (reconnect != null) {
      reconnect.cancel();
      reconnect = null;
    }
  }

  /** Every state change, on the control executor; tells the listeners. */
  private void transitionTo(State next, Throwable cause) {
    host.control().assertInExecutor();
    State previous = state;
    if (previous == State.SHUTDOWN) {
      return;
    }
    state = next;
    if (previous != next) {
      log.debug("{} {} -> {}{}", candidate.endpoint(), previous, next, cause == null ? "" : ": " + cause.getMessage());
    }
    for (Listener l : List.copyOf(listeners)) {
      l.onStateChanged(this, next, cause);
    }
  }

  /** The runtime closes: no more reconnects; the connection is drained by the caller. */
  void shutdown() {
    host.control().execute(() -> {
      cancelReconnect();
      transitionTo(State.SHUTDOWN, null);
    });
  }

  @Override
  public String toString() {
    return key.address() + " " + state;
  }
}
