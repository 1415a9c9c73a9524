package dev.tether.grpc.client;

import dev.tether.grpc.InboundBudget;
import dev.tether.spi.ClientWireProtocol;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The calls of one HTTP/2 connection to a gRPC server: those on open streams, by stream id, and
 * those waiting, never written, for a stream the server's SETTINGS_MAX_CONCURRENT_STREAMS allows. A
 * stream's exchange leaves through {@link #end}, which frees what its answer had buffered and gives
 * its bytes back to the connection's {@link InboundBudget}. The connection's event loop only.
 */
final class CallTable {
  private final IntObjectMap<Exchange> streams = new IntObjectHashMap<>();
  private final ArrayDeque<ClientWireProtocol.Call> waiting = new ArrayDeque<>();
  private final InboundBudget budget;

  CallTable(InboundBudget budget) {
    this.budget = budget;
  }

  void put(int id, Exchange exchange) {
    streams.put(id, exchange);
  }

  /** The exchange on stream {@code id}, or null when it ended (or never was ours). */
  Exchange get(int id) {
    return streams.get(id);
  }

  /** Ends stream {@code id}'s exchange and frees its buffered bytes; null when none was open. */
  Exchange end(int id) {
    Exchange e = streams.remove(id);
    if (e != null) {
      e.deframer.release();
      budget.give(e.charged);
      e.charged = 0;
    }
    return e;
  }

  /**
   * Counts {@code bytes} more of {@code e}'s answer held; false, counting nothing, when that would
   * take the connection over its bound.
   */
  boolean hold(Exchange e, int bytes) {
    if (!budget.take(bytes)) {
      return false;
    }
    e.charged += bytes;
    return true;
  }

  /** {@code bytes} of {@code e}'s answer left the connection (a stream's message, handed on). */
  void handedOn(Exchange e, int bytes) {
    e.charged -= bytes;
    budget.give(bytes);
  }

  long maxHeldBytes() {
    return budget.limit();
  }

  /** Ends every exchange on a stream above {@code lastStreamId} (a GOAWAY's), returning them. */
  List<Exchange> endAbove(int lastStreamId) {
    List<Integer> above = new ArrayList<>();
    for (IntObjectMap.PrimitiveEntry<Exchange> e : streams.entries()) {
      if (e.key() > lastStreamId) {
        above.add(e.key());
      }
    }
    List<Exchange> ended = new ArrayList<>(above.size());
    for (int id : above) {
      ended.add(end(id));
    }
    return ended;
  }

  /** The stream {@code call} is on, 0 when none. */
  int streamOf(ClientWireProtocol.Call call) {
    for (IntObjectMap.PrimitiveEntry<Exchange> e : streams.entries()) {
      if (e.value().call == call) {
        return e.key();
      }
    }
    return 0;
  }

  boolean hasStreams() {
    return !streams.isEmpty();
  }

  /** Calls on streams and calls waiting for one. */
  int size() {
    return streams.size() + waiting.size();
  }

  void await(ClientWireProtocol.Call call) {
    waiting.add(call);
  }

  /** Takes {@code call} back if it still waits. */
  boolean unwait(ClientWireProtocol.Call call) {
    return waiting.remove(call);
  }

  boolean anyWaiting() {
    return !waiting.isEmpty();
  }

  /** The longest-waiting call, taken out; null when none waits. */
  ClientWireProtocol.Call nextWaiting() {
    return waiting.poll();
  }
}
