package dev.tether.client;

import dev.tether.SessionLostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Named sessions (the client-reroute behaviour): the server keeps a session's state on one
 * connection, so its calls stay there. When that connection was lost, the next call opens another
 * and fails with SessionLostException (IBM's -4498) naming the new server; later calls run there.
 * Each session's connection changes on the control executor only.
 */
final class Sessions {
  private final ConcurrentHashMap<String, Slot> sessions = new ConcurrentHashMap<>();
  private final CallHost host;
  private final ConnectionFinder finder;

  Sessions(CallHost host, ConnectionFinder finder) {
    this.host = host;
    this.finder = finder;
  }

  /** One session's connection; null before its first call. */
  private static final class Slot {
    /**
     * Written on the control executor; volatile so a call on the hot path reads it without hopping.
     */
    volatile RequestChannel connection;
  }

  void start(Invocation inv) {
    Slot slot = slotOf(inv);
    RequestChannel current = slot.connection;
    if (current != null && current.isUsable()) {
      current.send(inv);
      return;
    }
    host.control().execute(() -> reconnect(slot, inv, finder::find));
  }

  /**
   * Places again (on the control executor) a call its connection never sent: on the session's
   * connection while it is usable; otherwise the session has moved, and the call says so rather
   * than running on a server that does not hold the session's state.
   */
  void retry(Invocation inv) {
    host.control().assertInExecutor();
    reconnect(slotOf(inv), inv, finder::resume);
  }

  private Slot slotOf(Invocation inv) {
    return sessions.computeIfAbsent(
        inv.settings().identity() + "/" + inv.settings().session(), k -> new Slot());
  }

  private void reconnect(
      Slot slot, Invocation inv, Function<Invocation, CompletableFuture<RequestChannel>> finding) {
    RequestChannel before = slot.connection;
    if (before != null && before.isUsable()) {
      before.send(inv);
      return;
    }
    finding
        .apply(inv)
        .whenComplete(
            (connection, failure) ->
                host.control()
                    .execute(
                        () -> {
                          if (failure != null) {
                            inv.onConnectFailed(CallFailures.unwrap(failure));
                            return;
                          }
                          RequestChannel replaced = slot.connection;
                          slot.connection = connection;
                          if (replaced == null || replaced == connection) {
                            connection.send(inv);
                          } else {
                            inv.fail(
                                new SessionLostException(
                                    "session "
                                        + inv.settings().session()
                                        + " reconnected to "
                                        + connection
                                        + "; the session's work was lost; retry the unit"));
                          }
                        }));
  }
}
