package dev.tether.virtualthreads;

import dev.tether.internal.VirtualThreads;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs tasks on virtual threads from tests compiled for Java 17 (the module runs them on 25), and
 * asks a thread whether it is one, through a method handle since {@code Thread.isVirtual} is 21's.
 */
final class OnVirtualThreads {
  private static final MethodHandle IS_VIRTUAL;

  static {
    try {
      IS_VIRTUAL =
          MethodHandles.publicLookup()
              .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError("these tests need Java 21 or later: " + e);
    }
  }

  private OnVirtualThreads() {}

  static boolean isVirtual(Thread thread) {
    try {
      return (boolean) IS_VIRTUAL.invokeExact(thread);
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Starts {@code count} tasks at once, each on a virtual thread of its own; returns their results
   * in order.
   */
  static <T> List<T> runAtOnce(int count, IndexedTask<T> task, long timeoutSeconds)
      throws Exception {
    ExecutorService callers = VirtualThreads.newThreadPerTaskExecutor("test-caller-");
    try {
      List<Future<T>> futures = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int index = i;
        futures.add(callers.submit((Callable<T>) () -> task.run(index)));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      List<T> results = new ArrayList<>(count);
      for (Future<T> f : futures) {
        results.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      }
      return results;
    } finally {
      callers.shutdownNow();
    }
  }

  /** One task of a batch, told its index. */
  @FunctionalInterface
  interface IndexedTask<T> {
    T run(int index) throws Exception;
  }
}
