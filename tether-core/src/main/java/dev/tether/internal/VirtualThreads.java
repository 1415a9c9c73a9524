package dev.tether.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * Java 21's virtual threads for code compiled for Java 17: the two calls Tether needs ({@code
 * Thread.ofVirtual().name(prefix, 0).factory()} and {@code
 * Executors.newThreadPerTaskExecutor(factory)}) are method handles looked up once, when this class
 * loads. Before Java 21 they are absent and {@link #available()} is false.
 */
public final class VirtualThreads {
  /** The first Java release whose virtual threads are not a preview. */
  public static final int FIRST_RELEASE = 21;

  /**
   * {@code () -> Thread.ofVirtual().name(prefix, 0).factory()} as {@code (String) ThreadFactory};
   * null before 21.
   */
  private static final MethodHandle NAMED_FACTORY;

  /** {@code Executors.newThreadPerTaskExecutor(ThreadFactory)}; null before 21. */
  private static final MethodHandle PER_TASK_EXECUTOR;

  static {
    MethodHandle factory = null;
    MethodHandle executor = null;
    if (Runtime.version().feature() >= FIRST_RELEASE) {
      try {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
        MethodHandle start =
            lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual));
        MethodHandle name =
            lookup.findVirtual(
                ofVirtual, "name", MethodType.methodType(ofVirtual, String.class, long.class));
        MethodHandle build =
            lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class));
        // (prefix) -> ofVirtual().name(prefix, 0).factory()
        MethodHandle named =
            MethodHandles.insertArguments(MethodHandles.collectArguments(name, 0, start), 1, 0L);
        factory =
            MethodHandles.filterReturnValue(
                named, build.asType(MethodType.methodType(ThreadFactory.class, ofVirtual)));
        executor =
            lookup.findStatic(
                Executors.class,
                "newThreadPerTaskExecutor",
                MethodType.methodType(ExecutorService.class, ThreadFactory.class));
      } catch (ReflectiveOperationException absent) {
        factory = null;
        executor = null;
      }
    }
    NAMED_FACTORY = factory;
    PER_TASK_EXECUTOR = executor;
  }

  private VirtualThreads() {}

  /** True on Java 21 and later, where this JVM can start virtual threads. */
  public static boolean available() {
    return PER_TASK_EXECUTOR != null;
  }

  /**
   * Fails when virtual threads are not available, with a message naming {@code feature}, the
   * release it needs and the release running.
   *
   * @throws IllegalStateException before Java 21
   */
  public static void require(String feature) {
    if (!available()) {
      throw new IllegalStateException(
          feature
              + " needs Java "
              + FIRST_RELEASE
              + " or later (virtual threads); this JVM runs Java "
              + Runtime.version()
              + " ("
              + System.getProperty("java.home")
              + ")");
    }
  }

  /** Virtual threads named {@code prefix} and a number counting from 0. */
  public static ThreadFactory factory(String prefix) {
    require("a virtual thread factory");
    try {
      return (ThreadFactory) NAMED_FACTORY.invokeExact(prefix);
    } catch (Throwable t) {
      throw new IllegalStateException("cannot make a virtual thread factory", t);
    }
  }

  /**
   * An executor that starts one virtual thread, named {@code prefix} and a number, per task; {@code
   * shutdownNow} interrupts the running ones.
   */
  public static ExecutorService newThreadPerTaskExecutor(String prefix) {
    ThreadFactory threads = factory(prefix);
    try {
      return (ExecutorService) PER_TASK_EXECUTOR.invokeExact(threads);
    } catch (Throwable t) {
      throw new IllegalStateException("cannot make a virtual-thread executor", t);
    }
  }
}
