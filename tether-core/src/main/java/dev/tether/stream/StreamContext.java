package dev.tether.stream;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a stream's state changes: tasks run one at a time, in submission order, always on
 * the backing executor and never on the submitting thread, so a subscriber that blocks in onNext
 * stalls its own stream and never the event loop that read the item. After each run of tasks the
 * stream's pending writes are flushed once.
 */
public final class StreamContext implements Executor {
  private static final Logger log = LoggerFactory.getLogger(StreamContext.class);

  private final Executor backing;
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile Thread runner;

  /** Runs after each run of tasks, in the context: the stream flushes what its tasks wrote. */
  private Runnable afterRun = () -> {};

  public StreamContext(Executor backing) {
    this.backing = backing;
  }

  /** What runs after every run of tasks; set before the first task. */
  public void afterEachRun(Runnable flush) {
    afterRun = flush;
  }

  @Override
  public void execute(Runnable task) {
    tasks.add(task);
    if (scheduled.compareAndSet(false, true)) {
      backing.execute(this::runAll);
    }
  }

  /** True on the thread running this stream's tasks now. */
  public boolean inContext() {
    return runner == Thread.currentThread();
  }

  private void runAll() {
    runner = Thread.currentThread();
    try {
      Runnable next;
      while ((next = tasks.poll()) != null) {
        try {
          next.run();
        } catch (Throwable t) {
          log.error("a stream task failed", t);
        }
      }
      afterRun.run();
    } finally {
      runner = null;
      scheduled.set(false);
    }
    // A task queued after the last poll but before the release would otherwise wait.
    if (!tasks.isEmpty() && scheduled.compareAndSet(false, true)) {
      backing.execute(this::runAll);
    }
  }
}
