package dev.tether.chaos;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What a JVM holds that a leak would grow: live threads (with their names, to say which are new;
 * not the shared stream pool's idle ones, which retire on their own a minute after their last
 * stream), open file descriptors ({@code /proc/self/fd}; -1 where there is none), and Netty's
 * direct memory (its own counter, and the default allocator's, -1 when not tracked).
 */
public record ResourceSnapshot(
    int threads,
    List<String> threadNames,
    long fileDescriptors,
    long nettyDirectMemory,
    long allocatorDirectMemory) {

  /**
   * The process-wide pool stream contexts run on: its idle threads retire a minute after their last
   * stream, longer than the run waits for threads to settle, so they are not counted.
   */
  private static final String STREAM_POOL_PREFIX = "tether-stream-";

  /** The JVM now. */
  public static ResourceSnapshot take() {
    List<String> names = new ArrayList<>();
    int idleStreamThreads = 0;
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      Thread t = e.getKey();
      if (!t.isAlive()) {
        continue;
      }
      if (t.getName().startsWith(STREAM_POOL_PREFIX) && idleInPool(e.getValue())) {
        idleStreamThreads++;
      } else {
        names.add(t.getName());
      }
    }
    names.sort(null);
    return new ResourceSnapshot(
        ManagementFactory.getThreadMXBean().getThreadCount() - idleStreamThreads,
        List.copyOf(names),
        countFileDescriptors(),
        PlatformDependent.usedDirectMemory(),
        allocatorDirectMemoryNow());
  }

  /** Whether a pool thread with this stack waits for a task (a busy or stuck one does not). */
  private static boolean idleInPool(StackTraceElement[] stack) {
    for (StackTraceElement frame : stack) {
      if (frame.getClassName().equals("java.util.concurrent.ThreadPoolExecutor")
          && frame.getMethodName().equals("getTask")) {
        return true;
      }
    }
    return false;
  }

  /** Names of threads alive here that {@code baseline} did not have (by name, counting repeats). */
  public List<String> threadsNotIn(ResourceSnapshot baseline) {
    List<String> extra = new ArrayList<>(threadNames);
    for (String name : baseline.threadNames) {
      extra.remove(name);
    }
    return extra;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "threads %d, file descriptors %d, netty direct memory %s, allocator direct memory %s",
        threads,
        fileDescriptors,
        bytes(nettyDirectMemory),
        bytes(allocatorDirectMemory));
  }

  static String bytes(long n) {
    return n < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
  }

  private static long countFileDescriptors() {
    Path fds = Path.of("/proc/self/fd");
    if (!Files.isDirectory(fds)) {
      return -1;
    }
    try (Stream<Path> s = Files.list(fds)) {
      // The listing itself holds one descriptor while it runs.
      return s.count() - 1;
    } catch (IOException e) {
      return -1;
    }
  }

  private static long allocatorDirectMemoryNow() {
    return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p
        ? p.metric().usedDirectMemory()
        : -1;
  }
}
