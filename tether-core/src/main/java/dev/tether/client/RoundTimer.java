package dev.tether.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Starts a call's next round once its wait is over, on the control executor, and remembers the
 * rounds still waiting so that a closing runtime can run them at once: their timers live on the
 * event loops that closing stops, and a round run after close fails fast on the shut supervisors,
 * so no call waits for ever between rounds. Control executor only, but {@link #close}.
 */
final class RoundTimer {
  private final CallHost host;
  private final Set<Runnable> waiting = Collections.newSetFromMap(new IdentityHashMap<>());
  private boolean closed;

  RoundTimer(CallHost host) {
    this.host = host;
  }

  /** Runs {@code round} after {@code wait}, or at once once the runtime closed. */
  void start(Runnable round, Duration wait) {
    if (closed) {
      round.run();
      return;
    }
    waiting.add(round);
    host.scheduleOnControl(
        () -> {
          if (waiting.remove(round)) {
            round.run();
          }
        },
        wait);
  }

  /**
   * Keeps {@code round} for {@code wait} only in case the runtime closes meanwhile: the call's
   * deadline, due first, ends it otherwise.
   */
  void holdForClose(Runnable round, Duration wait) {
    if (closed) {
      round.run();
      return;
    }
    waiting.add(round);
    host.scheduleOnControl(() -> waiting.remove(round), wait);
  }

  /** The runtime closes (any thread): every waiting round runs now, and later ones at once. */
  void close() {
    host.control()
        .execute(
            () -> {
              closed = true;
              List<Runnable> due = new ArrayList<>(waiting);
              waiting.clear();
              due.forEach(Runnable::run);
            });
  }
}
