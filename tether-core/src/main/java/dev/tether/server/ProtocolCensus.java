package dev.tether.server;

import dev.tether.observe.ServerStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The connections of other protocols a server admitted, and the calls those that closed served: the
 * share of each protocol in its status. Owned by the server's control executor; each connection's
 * own counts are read on its loop.
 */
final class ProtocolCensus {
  /** The protocols' names in registration order. */
  private final List<String> names;

  private final Set<ProtocolConnection> open = new HashSet<>();
  private final Map<String, Long> servedByClosed = new HashMap<>();

  ProtocolCensus(List<String> names) {
    this.names = List.copyOf(names);
  }

  int size() {
    return open.size();
  }

  void add(ProtocolConnection c) {
    open.add(c);
  }

  void closed(ProtocolConnection c, long served) {
    if (open.remove(c)) {
      servedByClosed.merge(c.protocol(), served, Long::sum);
    }
  }

  /** What a status snapshot reads; taken on the control executor. */
  Snapshot snapshot() {
    return new Snapshot(List.copyOf(open), Map.copyOf(servedByClosed));
  }

  /** The open connections and what closed ones served, as the control executor saw them. */
  record Snapshot(List<ProtocolConnection> open, Map<String, Long> servedByClosed) {}

  /**
   * Each protocol's share, its open connections' counts read on their loops (off the control
   * executor: it waits for them).
   */
  List<ServerStatus.ProtocolShare> shares(Snapshot s) {
    List<ServerStatus.ProtocolShare> shares = new ArrayList<>(names.size());
    List<long[]> counts =
        ConnectionReads.onEachLoop(
            s.open(),
            ProtocolConnection::channel,
            c -> new long[] {names.indexOf(c.protocol()), c.inFlight(), c.served()});
    for (int i = 0; i < names.size(); i++) {
      int connections = 0;
      int inFlight = 0;
      long served = s.servedByClosed().getOrDefault(names.get(i), 0L);
      for (long[] c : counts) {
        if (c[0] == i) {
          connections++;
          inFlight += (int) c[1];
          served += c[2];
        }
      }
      shares.add(new ServerStatus.ProtocolShare(names.get(i), connections, inFlight, served));
    }
    return shares;
  }
}
