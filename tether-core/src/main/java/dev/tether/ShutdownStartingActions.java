package dev.tether;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The actions a server runs when its graceful shutdown first starts: once, in the order added, on
 * the calling thread; one that throws is logged and the others still run, since a failing registry
 * must not keep the server from draining. Thread-safe.
 */
final class ShutdownStartingActions {
  private static final Logger log = LoggerFactory.getLogger(TetherServer.class);

  private final List<Runnable> actions = new CopyOnWriteArrayList<>();
  private final AtomicBoolean ran = new AtomicBoolean();

  void add(Runnable action) {
    actions.add(Objects.requireNonNull(action));
  }

  /** Runs every action, unless they ran before; {@code serverId} names the server in the log. */
  void runOnce(String serverId) {
    if (!ran.compareAndSet(false, true)) {
      return;
    }
    for (Runnable action : actions) {
      try {
        action.run();
      } catch (RuntimeException e) {
        log.warn(
            "a shutdown-starting action of server {} failed; the shutdown goes on", serverId, e);
      }
    }
  }
}
