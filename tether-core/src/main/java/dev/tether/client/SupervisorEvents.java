package dev.tether.client;

import dev.tether.client.ConnectionSupervisor.State;
import dev.tether.observe.TetherEvent;

/**
 * Which event a supervisor's transition emits: a pure function of the two states, tested as a
 * table.
 */
final class SupervisorEvents {
  private SupervisorEvents() {}

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
