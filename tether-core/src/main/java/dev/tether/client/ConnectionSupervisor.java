package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.Endpoint;
import dev.tether.TetherException;
import dev.tether.internal.Backoff;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of the connection for one {@link ConnectionKey}: it dials when a call needs the
 * key; after a failed dial (the first one included) it alone dials again, once per backoff delay of
 * one failure streak, until the key is READY; a lost connection it dials again at once, and backs
 * off only if that fails. While it backs off a call never dials: it fails at once naming the last
 * failure and when the next attempt is due, or (waiting for ready) waits for that attempt. A streak
 * no call asked for since its last attempt goes back to IDLE rather than dialling forever (its
 * delays keep growing from where they were), though a lost connection gets one scheduled attempt
 * unasked; a key a node group owns keeps reconnecting. All state changes on the runtime's control
 * executor, through its one transition method, which alone publishes what other threads read.
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
    /**
     * The last attempt failed or the connection broke; the next attempt waits for its backoff
     * delay.
     */
    TRANSIENT_FAILURE,
    /** The runtime closed; terminal. */
    SHUTDOWN
  }

  /** Hears of every state change, on the control executor. */
  @FunctionalInterface
  public interface Listener {
    void onStateChanged(ConnectionSupervisor supervisor, State state, Throwable cause);
  }

  /**
   * What other threads may know of the supervisor: written only by {@link #transitionTo} on the
   * control executor and read anywhere (status, idle close, healthy-first ordering) without a hop.
   */
  record Snapshot(State state, boolean ownedByGroup) {}

  private final SupervisorHost host;
  private final ConnectionKey key;
  private final ExtraConnections extras;
  private final ConnectionRotation rotation;
  private final List<Listener> listeners = new ArrayList<>(1);

  /**
   * The connection now (connecting, ready or draining), or null; written by transitionTo only, read
   * anywhere.
   */
  private volatile RequestChannel current;

  private volatile Snapshot published = new Snapshot(State.IDLE, false);
  // The fields below are the control executor's alone.
  private State state = State.IDLE;
  private Candidate candidate;
  private final ReconnectBackoff backoff;
  private final SupervisorEvents events;

  /** What the key answers the calls that ask for it, and whether any asked since its last dial. */
  private final KeyDemand demand;

  ConnectionSupervisor(
      SupervisorHost host, ConnectionKey key, Candidate candidate, Backoff backoff) {
    this.host = host;
    this.key = key;
    this.candidate = candidate;
    this.backoff = new ReconnectBackoff(host, backoff);
    this.events = new SupervisorEvents(host.events(), this.backoff);
    this.extras = new ExtraConnections(host, key, host.maxExtraConnections());
    this.rotation = new ConnectionRotation(host, key);
    this.demand = new KeyDemand(this, host::isClosing);
  }

  public ConnectionKey key() {
    return key;
  }

  /** The state as last published; exact on the control executor, a snapshot elsewhere. */
  public State state() {
    return published.state();
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
  List<Lane> extras() {
    return extras.all();
  }

  /** The connections this key replaced that still drain their calls; for status and shutdown. */
  List<RequestChannel> retired() {
    return rotation.retired();
  }

  /**
   * True while a node group keeps this key connected: idle close does not apply then. Any thread.
   */
  boolean keepsConnected() {
    return published.ownedByGroup();
  }

  /** The endpoint this key dials; for a call's timeline. Control executor. */
  Endpoint endpoint() {
    return candidate.endpoint();
  }

  /**
   * What the key backs off after and how long it still waits, in words; in TRANSIENT_FAILURE.
   * Control executor.
   */
  String backoffNote() {
    return backoff.note();
  }

  /**
   * When the next attempt is due on the runtime's ticker, in TRANSIENT_FAILURE. Control executor.
   */
  long nextAttemptNanos() {
    return backoff.nextAttemptNanos();
  }

  /** Why the last attempt failed or the connection broke; null once READY. Control executor. */
  TetherException lastFailure() {
    return backoff.lastFailure();
  }

  /** The replacement of the aged connection while one is under way, else null. Control executor. */
  RequestChannel replacementUnderWay() {
    return rotation.isUnderWay() ? rotation.replacement() : null;
  }

  /** True while the key waits for its next attempt: calls go elsewhere first. Any thread. */
  boolean isBackingOff() {
    return published.state() == State.TRANSIENT_FAILURE;
  }

  /**
   * {@code lane} has calls waiting for a slot (any thread): move them or open an extra connection.
   */
  void onSaturated(Lane lane) {
    host.control()
        .execute(
            () -> {
              if (state != State.SHUTDOWN) {
                extras.onSaturated(lane, current, candidate);
              }
            });
  }

  /**
   * The key's connection for a call that does not wait for ready; see {@link #obtain(Candidate,
   * boolean, long)}.
   */
  public CompletableFuture<RequestChannel> obtain(Candidate forCall) {
    return obtain(forCall, false, 0);
  }

  /**
   * The key's connection, dialling now when the key is IDLE. While the key backs off the future
   * fails at once with a {@link ConnectFailedException} naming the last failure and when the next
   * attempt is due, unless {@code waitForReady} and that attempt is due before {@code
   * deadlineNanos} (0: none): then it follows that attempt. Safe from any thread.
   */
  public CompletableFuture<RequestChannel> obtain(
      Candidate forCall, boolean waitForReady, long deadlineNanos) {
    return obtain(forCall, waitForReady, deadlineNanos, -1, null);
  }

  /**
   * {@link #obtain(Candidate, boolean, long)} for a call's walk, which {@code witness} tells of the
   * attempt it takes part in. {@code redialAfter} (-1: none) is the attempt this call took part in
   * and saw fail in an earlier round: while the key backs off after that very attempt, it is
   * dialled again now; after a later attempt, the call joins or meets that one instead.
   */
  CompletableFuture<RequestChannel> obtain(
      Candidate forCall,
      boolean waitForReady,
      long deadlineNanos,
      long redialAfter,
      AttemptWitness witness) {
    RequestChannel c = usable();
    // A walk learns on the control executor which attempt it joins; only a ready one needs no hop.
    if (c != null && (witness == null || c.ready().isDone())) {
      return c.ready();
    }
    CompletableFuture<RequestChannel> result = new CompletableFuture<>();
    host.control()
        .execute(
            () ->
                demand.answer(forCall, waitForReady, deadlineNanos, redialAfter, witness, result));
    return result;
  }

  /**
   * A node group owns this key from now on: it is kept connected, reconnecting under the group's
   * backoff, until the group removes its listener. Call on the control executor.
   */
  public void keepConnected(Backoff nodeBackoff, Listener listener) {
    host.control().assertInExecutor();
    backoff.use(nodeBackoff);
    listeners.add(listener);
    publish();
    listener.onStateChanged(this, state, null);
  }

  /**
   * Stops telling {@code listener} (a node group that dropped this node); call on the control
   * executor.
   */
  public void removeListener(Listener listener) {
    host.control().assertInExecutor();
    listeners.remove(listener);
    publish();
  }

  /** Starts an attempt (on the control executor); the calls waiting for it follow it. */
  RequestChannel dial(Candidate forCall) {
    candidate = forCall;
    backoff.cancelNext();
    RequestChannel c = host.newConnection(candidate, key);
    transitionTo(State.CONNECTING, c, null);
    extras.onPrimaryChanged(c);
    demand.onAttemptStarted(c);
    c.connect();
    c.ready()
        .whenComplete((ready, failure) -> host.control().execute(() -> onAttemptDone(c, failure)));
    return c;
  }

  /**
   * The attempt that opened {@code c} ended; ignored unless {@code c} is still the current attempt.
   */
  void onAttemptDone(RequestChannel c, Throwable failure) {
    if (c != current || state != State.CONNECTING) {
      return;
    }
    if (failure == null) {
      backoff.onReady();
      transitionTo(State.READY, c, null);
    } else {
      backOff(CallFailures.unwrap(failure));
    }
  }

  /**
   * The connection closed (called on its loop). {@code unexpectedly}: it broke while serving,
   * rather than being closed or drained on purpose.
   */
  void onConnectionClosed(RequestChannel c, boolean unexpectedly, Throwable cause) {
    host.control()
        .execute(
            () -> {
              if (c.isExtra()) {
                extras.onClosed(c, current);
                return;
              }
              if (rotation.onClosed(c) || c != current || state == State.SHUTDOWN) {
                return;
              }
              if (state == State.READY && rotation.isUnderWay()) {
                transitionTo(
                    State.CONNECTING,
                    rotation.promote(),
                    null); // its attempt decides, as any dial's
              } else if (state == State.CONNECTING) {
                onAttemptDone(
                    c,
                    cause != null
                        ? cause
                        : new ConnectFailedException("connection closed while connecting"));
              } else if (unexpectedly || isOwnedByGroup()) {
                // The server was up a moment ago: the streak's first attempt needs no delay
                // (as gRPC reconnects a lost transport); only a failed attempt waits. The lost
                // connection's calls want it back: one scheduled attempt runs unasked.
                backoff.startStreak();
                dial(candidate);
                demand.askOnBehalfOfLostCalls();
              } else {
                transitionTo(State.IDLE, null, cause);
              }
            });
  }

  /**
   * {@code c} reached its maximum age (any thread): the key's own connection gets its replacement
   * at once and keeps its calls until that is READY; an extra one drains (extras reopen under
   * load).
   */
  void onAged(RequestChannel c, String why) {
    host.control()
        .execute(
            () -> {
              if (c.isExtra()) {
                c.drain();
              } else if (c == current && state == State.READY && !rotation.isUnderWay()) {
                rotation.start(c, candidate, why, this::onReplacementDone);
              }
            });
  }

  /**
   * The replacement's attempt ended: once ready it is the key's connection, and the aged one
   * drains.
   */
  private void onReplacementDone(RequestChannel next, Throwable failure) {
    if (next == current) {
      onAttemptDone(next, failure); // promoted: the aged connection closed first
      return;
    }
    RequestChannel old = rotation.finish(next);
    if (old != null && old == current && state == State.READY && failure == null) {
      rotation.retire(old);
      transitionTo(State.READY, next, null);
      extras.onPrimaryChanged(next);
      rotation.rotated(candidate, old, next);
    } else if (old != null && failure == null) {
      next.drain(); // the key moved on meanwhile: the aged connection serves until it closes
    }
  }

  /** Enters TRANSIENT_FAILURE with the streak's next attempt scheduled. */
  private void backOff(TetherException cause) {
    backoff.scheduleNext(cause, this::onBackoffElapsed);
    transitionTo(State.TRANSIENT_FAILURE, null, cause);
  }

  private void onBackoffElapsed() {
    backoff.onAttemptDue();
    if (state != State.TRANSIENT_FAILURE || host.isClosing()) {
      return;
    }
    if (demand.wasAsked() || isOwnedByGroup()) {
      log.debug("reconnecting to {}", candidate.endpoint());
      dial(candidate);
    } else {
      transitionTo(State.IDLE, null, null); // nobody asked since the last attempt: stop dialling
    }
  }

  /**
   * The client's TLS credentials changed (any thread): a failure under the old ones says nothing of
   * the new, so a secure key backing off forgets its streak and dials for its next call (at once
   * when calls wait for ready), and an attempt under way is replaced by one with the new
   * credentials.
   */
  void onCredentialsChanged() {
    host.control()
        .execute(
            () -> {
              if (!candidate.transport().isSecure()) {
                return;
              }
              if (state == State.TRANSIENT_FAILURE) {
                backoff.forget();
                if (demand.hasWaiters()) {
                  dial(candidate); // the calls waiting for ready try the new credentials now
                } else {
                  transitionTo(State.IDLE, null, null);
                }
              } else if (state == State.CONNECTING) {
                backoff.forget();
                RequestChannel stale = current;
                dial(candidate);
                stale.close();
              }
            });
  }

  private boolean isOwnedByGroup() {
    return !listeners.isEmpty();
  }

  /**
   * Every state change, on the control executor: publishes the state for other threads, emits the
   * transition's event and tells the listeners. {@code connection} becomes the current one.
   */
  private void transitionTo(State next, RequestChannel connection, Throwable cause) {
    host.control().assertInExecutor();
    State previous = state;
    if (previous == State.SHUTDOWN) {
      return;
    }
    state = next;
    current = connection;
    publish();
    if (previous != next) {
      log.debug(
          "{} {} -> {}{}",
          candidate.endpoint(),
          previous,
          next,
          cause == null ? "" : ": " + cause.getMessage());
      events.emit(candidate, previous, next, connection, cause);
    }
    for (Listener l : List.copyOf(listeners)) {
      l.onStateChanged(this, next, cause);
    }
  }

  /**
   * Only transitionTo and the group's ownership changes publish; both run on the control executor.
   */
  private void publish() {
    published = new Snapshot(state, isOwnedByGroup());
  }

  /** The runtime closes: no more attempts; the connection is drained by the caller. */
  void shutdown() {
    host.control()
        .execute(
            () -> {
              backoff.cancelNext();
              rotation.cancel();
              extras.shutdown();
              demand.onShutdown(new TetherException("the Tether runtime is closed"));
              transitionTo(State.SHUTDOWN, current, null);
            });
  }

  @Override
  public String toString() {
    return key.address() + " " + published.state();
  }
}
