package dev.tether.client;

import dev.tether.internal.SerialExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Starts a call's next round once its wait is over, on the control executor, and remembers the
 * rounds still waiting so that a closing runtime can run them at once: their timers live on the
 * event loops that closing stops, and a round run after close fails fast on the shut supervisors,
 * so no call waits for ever between rounds. Control executor only, but {@link #close}.
 */
final class RoundTimer {
  private final SerialExecutor control;

  /** Runs a task on the control executor after a delay (the runtime's timer). */
  private final BiConsumer<Runnable, Duration> later;

  private final Set<Runnable> waiting = Collections.newSetFromMap(new IdentityHashMap<>());
  private boolean closed;

  RoundTimer(SerialExecutor control, BiConsumer<Runnable, Duration> later) {
    this.control = control;
    this.later = later;
  }

  /** Runs {@code round} after {@code wait}, or at once once the runtime closed. */
  void start(Runnable round, Duration wait) {
    if (closed) {
      round.run();
      return;
    }
    waiting.add(round);
    later.accept(
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
    later.accept(() -> waiting.remove(round), wait);
  }

  /** The runtime closes (any thread): every waiting round runs now, and later ones at once. */
  void close() {
    control.execute(
        () -> {
          closed = true;
          List<Runnable> due = new ArrayList<>(waiting);
          waiting.clear();
          due.forEach(Runnable::run);
        });
  }
}
