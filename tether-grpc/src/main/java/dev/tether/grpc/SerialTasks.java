package dev.tether.grpc;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one call's listener events one at a time, in order, on the server's executor, as grpc-java
 * promises a {@code ServerCall.Listener}: never two at once, each seeing what the one before did.
 */
final class SerialTasks implements Executor {
  private static final Logger log = LoggerFactory.getLogger(SerialTasks.class);

  private final Executor delegate;
  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final Runnable drain = this::drain;

  SerialTasks(Executor delegate) {
    this.delegate = delegate;
  }

  @Override
  public void execute(Runnable task) {
    queue.add(task);
    schedule();
  }

  private void schedule() {
    if (scheduled.compareAndSet(false, true)) {
      try {
        delegate.execute(drain);
      } catch (RejectedExecutionException busy) {
        // Every thread is taken: the events stay queued and run with this call's next event.
        scheduled.set(false);
        log.warn("the server's executor refused a gRPC call's events; they wait for the next one");
      }
    }
  }

  private void drain() {
    try {
      Runnable task;
      while ((task = queue.poll()) != null) {
        try {
          task.run();
        } catch (Throwable t) {
          log.warn("a gRPC call's event failed", t);
        }
      }
    } finally {
      scheduled.set(false);
      if (!queue.isEmpty()) {
        schedule();
      }
    }
  }
}
