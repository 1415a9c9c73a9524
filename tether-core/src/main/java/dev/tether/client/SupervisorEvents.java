package dev.tether.client;

import dev.tether.client.ConnectionSupervisor.State;
import dev.tether.internal.EventBus;
import dev.tether.observe.TetherEvent;

/**
 * The events of one supervisor's transitions: which one a transition emits is a pure function of
 * the two states, tested as a table; what it says comes from the key's dial and its backoff. Used
 * on the control executor, by the supervisor's transition method only.
 */
final class SupervisorEvents {
  private final EventBus events;
  private final ReconnectBackoff backoff;

  SupervisorEvents(EventBus events, ReconnectBackoff backoff) {
    this.events = events;
    this.backoff = backoff;
  }

  /**
   * Emits the event of the move from {@code previous} to {@code next} of the key dialling {@code
   * candidate}, if it has one and anyone listens.
   */
  void emit(
      Candidate candidate, State previous, State next, RequestChannel connection, Throwable cause) {
    TetherEvent.Kind kind = eventOf(previous, next);
    if (kind == null || !events.isOn()) {
      return;
    }
    String detail =
        switch (kind) {
          case CONNECTING -> "opening " + candidate.address();
          case CONNECTED ->
              connection instanceof ClientConnection cc
                  ? ClientHandshake.summary(cc.welcome())
                  : "open";
          case CONNECT_FAILED ->
              backoff.lastFailure().getMessage()
                  + "; next attempt due in "
                  + backoff.millisToNextAttempt()
                  + " ms";
          default -> String.valueOf(cause);
        };
    events.emit(
        kind,
        candidate.endpoint().toString(),
        detail,
        kind == TetherEvent.Kind.CONNECT_FAILED ? backoff.lastFailure() : cause);
  }

  /**
   * The event of a transition, or null: the supervisor reports its dials (one CONNECTING, then
   * CONNECTED or CONNECT_FAILED per attempt); a connection that closes reports that itself
   * (CONNECTION_CLOSED, with its reason), and going IDLE or SHUTDOWN is no news to a listener.
   */
  static TetherEvent.Kind eventOf(State previous, State next) {
    return switch (next) {
      case CONNECTING -> TetherEvent.Kind.CONNECTING;
      case READY -> previous == State.CONNECTING ? TetherEvent.Kind.CONNECTED : null;
      case TRANSIENT_FAILURE ->
          previous == State.CONNECTING ? TetherEvent.Kind.CONNECT_FAILED : null;
      case IDLE, SHUTDOWN -> null;
    };
  }
}
