package dev.tether.server;

import dev.tether.observe.ServerStatus;
import java.util.List;

/**
 * What a server's status snapshot starts from, as its control executor saw it: the lifecycle, the
 * open Tether connections and what closed ones served, and the other protocols' connections. {@link
 * #read} then reads each open connection's counts on its own loop, so nothing is read off its
 * owner.
 */
record StatusCounts(
    String state,
    List<ServerConnection> open,
    long servedByClosed,
    ProtocolCensus.Snapshot others) {

  /** The snapshot; waits for each connection's loop (at most a second each). */
  ServerStatus read(ProtocolCensus census, long aged, StreamRegistry streams) {
    List<ServerStatus.ProtocolShare> shares = census.shares(others);
    long inFlight = 0;
    long served = servedByClosed;
    int openStreams = 0;
    for (long[] counts :
        ConnectionReads.onEachLoop(
            open, c -> new long[] {c.inFlight(), c.served(), c.streamCount()})) {
      inFlight += counts[0];
      served += counts[1];
      openStreams += (int) counts[2];
    }
    int connections = open.size();
    for (ServerStatus.ProtocolShare share : shares) {
      connections += share.connections();
      inFlight += share.inFlight();
      served += share.served();
    }
    return new ServerStatus(
        state,
        connections,
        (int) inFlight,
        served,
        aged,
        openStreams,
        streams.detached(),
        streams.items().totals(),
        shares);
  }
}
