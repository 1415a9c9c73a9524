package dev.tether.observe;

/**
 * A server as a status snapshot saw it.
 *
 * @param state "RUNNING", "DRAINING" or "CLOSED"
 * @param connections client connections open now
 * @param inFlight requests accepted and not answered yet
 * @param served requests answered since the server started
 * @param aged connections told to move on for their maximum age (GOAWAY(MAX_AGE)) since the server
 *     started
 * @param streams streams open now on the server's connections
 * @param detachedStreams streams whose connection was lost, kept (their services running) for their
 *     client to resume them within {@code tether.stream.resumeWindow}
 * @param streamItems items the server's streams sent and delivered since it started, open streams
 *     included (brought up to date after each batch of a stream's items)
 */
public record ServerStatus(
    String state,
    int connections,
    int inFlight,
    long served,
    long aged,
    int streams,
    int detachedStreams,
    TetherEvent.StreamItems streamItems) {
  /** A snapshot of a server whose connections never aged. */
  public ServerStatus(String state, int connections, int inFlight, long served) {
    this(state, connections, inFlight, served, 0);
  }

  /** A snapshot of a server that carries no stream. */
  public ServerStatus(String state, int connections, int inFlight, long served, long aged) {
    this(state, connections, inFlight, served, aged, 0, 0);
  }

  /** A snapshot of a server whose streams carried no item. */
  public ServerStatus(
      String state,
      int connections,
      int inFlight,
      long served,
      long aged,
      int streams,
      int detachedStreams) {
    this(
        state,
        connections,
        inFlight,
        served,
        aged,
        streams,
        detachedStreams,
        new TetherEvent.StreamItems(0, 0));
  }
}
