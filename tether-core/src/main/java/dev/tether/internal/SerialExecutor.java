package dev.tether.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's control executor: tasks run one at a time, in submission order, on the thread that
 * submitted while no other task runs (like gRPC's SynchronizationContext), so the state it owns
 * needs no lock. Tasks must not block. A task that throws is logged and the next one runs.
 */
public final class SerialExecutor implements Executor {
  private static final Logger log = LoggerFactory.getLogger(SerialExecutor.class);

  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicReference<Thread> drainer = new AtomicReference<>();

  /** Queues the task and runs the queue now unless another thread is running it. */
  @Override
  public void execute(Runnable task) {
    queue.add(task);
    drain();
  }

  private void drain() {
    do {
      if (!drainer.compareAndSet(null, Thread.currentThread())) {
        return;
      }
      try {
        Runnable next;
        while ((next = queue.poll()) != null) {
          try {
            next.run();
          } catch (Throwable t) {
            log.error("a control task failed", t);
          }
        }
      } finally {
        drainer.set(null);
      }
      // A task queued after the last poll but before the release would otherwise wait.
    } while (!queue.isEmpty());
  }

  /** True on the thread running this executor's tasks now. */
  public boolean inExecutor() {
    return drainer.get() == Thread.currentThread();
  }

  /** Fails fast when a mutator of state this executor owns runs on another thread. */
  public void assertInExecutor() {
    if (!inExecutor()) {
      throw new IllegalStateException(
          "not on the control executor: " + Thread.currentThread().getName());
    }
  }
}
