package dev.tether.observe;

/**
 * A server as a status snapshot saw it.
 *
 * @param state "RUNNING", "DRAINING" or "CLOSED"
 * @param connections client connections open now
 * @param inFlight requests accepted and not answered yet
 * @param served requests answered since the server started
 * @param aged connections told to move on for their maximum age (GOAWAY(MAX_AGE)) since the server started
 */
public record ServerStatus(String state, int connections, int inFlight, long served, long aged) {
  /** A snapshot of a server whose connections never aged. */
  public ServerStatus(String state, int connections, int inFlight, long served) {
    this(state, connections, inFlight, served, 0);
  }
}
