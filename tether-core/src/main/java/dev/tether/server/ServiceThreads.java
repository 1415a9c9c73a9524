package dev.tether.server;

import dev.tether.ExecutionMode;
import dev.tether.internal.VirtualThreads;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads a server owns to run service code in its execution mode, when the application gives
 * it none.
 */
public final class ServiceThreads {
  private ServiceThreads() {}

  /** The threads the server owns for {@code mode}, stopped when it closes; null in DIRECT mode. */
  public static ExecutorService ownedFor(ExecutionMode mode) {
    return switch (mode) {
      case DIRECT -> null;
      case EXECUTOR, SERIALIZED -> pool();
      // Bounded by the dispatcher: see ExecutionMode.VIRTUAL_THREADS.
      case VIRTUAL_THREADS -> VirtualThreads.newThreadPerTaskExecutor("tether-service-virtual-");
    };
  }

  /**
   * A few threads per core stay ready; the pool grows to 256 threads as soon as every thread is
   * busy (service code blocking), one thread per blocked call. It queues nothing itself: calls wait
   * in the dispatcher's bounded run queue, which hands them to the pool's threads (see {@code
   * RunQueue}), and once that queue is full the server answers REFUSED rather than queueing without
   * bound: the client then knows the request did not run and may send it elsewhere.
   */
  private static ExecutorService pool() {
    int cores = Runtime.getRuntime().availableProcessors();
    return new ThreadPoolExecutor(
        Math.max(8, 4 * cores),
        256,
        60,
        TimeUnit.SECONDS,
        new SynchronousQueue<>(),
        new DefaultThreadFactory("tether-service", true));
  }
}
