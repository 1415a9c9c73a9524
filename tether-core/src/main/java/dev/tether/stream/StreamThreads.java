package dev.tether.stream;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads stream contexts run on by default: daemon threads made as streams need them and
 * retired after a minute idle, so a subscriber that blocks holds one thread and no event loop.
 */
public final class StreamThreads {
  private static final AtomicInteger NUMBER = new AtomicInteger();
  private static final ExecutorService SHARED =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          60,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          task -> {
            Thread t = new Thread(task, "tether-stream-" + NUMBER.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  private StreamThreads() {}

  /** The process-wide pool; it holds no thread while no stream runs. */
  public static Executor shared() {
    return SHARED;
  }
}
