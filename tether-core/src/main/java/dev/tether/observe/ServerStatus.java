package dev.tether.observe;

import java.util.ArrayList;
import java.util.List;

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
 * @param protocols the share of each protocol the server speaks beside Tether's own on the same
 *     port (such as gRPC), in registration order; empty when it speaks Tether's only. {@code
 *     connections}, {@code inFlight} and {@code served} above count every protocol; {@link
 *     #protocol(String)} gives any one's share, Tether's included
 */
public record ServerStatus(
    String state,
    int connections,
    int inFlight,
    long served,
    long aged,
    int streams,
    int detachedStreams,
    TetherEvent.StreamItems streamItems,
    List<ProtocolShare> protocols) {
  /** The name of Tether's own protocol, as {@link #protocol(String)} and the meters call it. */
  public static final String TETHER = "tether";

  public ServerStatus {
    protocols = List.copyOf(protocols);
  }

  /** A snapshot of a server that speaks Tether's protocol only. */
  public ServerStatus(
      String state,
      int connections,
      int inFlight,
      long served,
      long aged,
      int streams,
      int detachedStreams,
      TetherEvent.StreamItems streamItems) {
    this(
        state,
        connections,
        inFlight,
        served,
        aged,
        streams,
        detachedStreams,
        streamItems,
        List.of());
  }

  /**
   * One protocol's connections and calls.
   *
   * @param protocol {@code "tether"}, or the other protocol's name (such as {@code "grpc"})
   * @param connections its connections open now
   * @param inFlight its calls running now
   * @param served its calls ended since the server started
   */
  public record ProtocolShare(String protocol, int connections, int inFlight, long served) {}

  /** Every protocol's share, Tether's own first. */
  public List<ProtocolShare> byProtocol() {
    int connectionsOfOthers = 0;
    int inFlightOfOthers = 0;
    long servedByOthers = 0;
    for (ProtocolShare p : protocols) {
      connectionsOfOthers += p.connections();
      inFlightOfOthers += p.inFlight();
      servedByOthers += p.served();
    }
    ProtocolShare tether =
        new ProtocolShare(
            TETHER,
            connections - connectionsOfOthers,
            inFlight - inFlightOfOthers,
            served - servedByOthers);
    List<ProtocolShare> all = new ArrayList<>(protocols.size() + 1);
    all.add(tether);
    all.addAll(protocols);
    return List.copyOf(all);
  }

  /** The share of the protocol named {@code name}; zeros for one the server does not speak. */
  public ProtocolShare protocol(String name) {
    for (ProtocolShare p : byProtocol()) {
      if (p.protocol().equals(name)) {
        return p;
      }
    }
    return new ProtocolShare(name, 0, 0, 0);
  }

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
