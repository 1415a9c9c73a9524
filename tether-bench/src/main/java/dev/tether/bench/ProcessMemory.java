package dev.tether.bench;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;
import java.io.PrintStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * One process's memory after a full GC: heap used, Netty's direct-memory counter, its default
 * allocator's direct memory (-1 when it has no metric) and the JDK's direct buffer pool. Sent
 * between processes as one line.
 */
record ProcessMemory(long heapUsed, long nettyDirect, long allocatorDirect, long jdkDirect) {

  static ProcessMemory measure() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    long allocator =
        ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider p
            ? p.metric().usedDirectMemory()
            : -1;
    long jdk =
        ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("direct"))
            .mapToLong(BufferPoolMXBean::getMemoryUsed)
            .sum();
    return new ProcessMemory(heap, PlatformDependent.usedDirectMemory(), allocator, jdk);
  }

  String line() {
    return heapUsed + " " + nettyDirect + " " + allocatorDirect + " " + jdkDirect;
  }

  static ProcessMemory parse(String line) {
    String[] f = line.trim().split(" ");
    return new ProcessMemory(
        Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
  }

  /**
   * Netty's counter and the JDK's direct pool see the same buffers when Netty allocates them
   * through the JDK, and only Netty's sees those it allocates itself: the larger is the total.
   */
  long direct() {
    return Math.max(nettyDirect, jdkDirect);
  }

  /**
   * Prints {@code side}'s memory at 0, N/2 and N of {@code what} (three samples), and the cost of
   * one: the total growth over N, and the slope between N/2 and N, which leaves out one-time costs.
   */
  static void report(PrintStream out, String side, String what, ProcessMemory[] m, int n) {
    int half = n / 2;
    out.printf(
        Locale.ROOT,
        "%s: heap used %s -> %s -> %s; Netty direct counter %s -> %s -> %s;"
            + " allocator direct %s -> %s -> %s; JDK direct buffers %s -> %s -> %s%n",
        side,
        mib(m[0].heapUsed()),
        mib(m[1].heapUsed()),
        mib(m[2].heapUsed()),
        mib(m[0].nettyDirect()),
        mib(m[1].nettyDirect()),
        mib(m[2].nettyDirect()),
        mib(m[0].allocatorDirect()),
        mib(m[1].allocatorDirect()),
        mib(m[2].allocatorDirect()),
        mib(m[0].jdkDirect()),
        mib(m[1].jdkDirect()),
        mib(m[2].jdkDirect()));
    out.printf(
        Locale.ROOT,
        "%s per %s: heap %d B (slope N/2..N: %d B), direct %d B (slope: %d B)%n",
        side,
        what,
        (m[2].heapUsed() - m[0].heapUsed()) / n,
        (m[2].heapUsed() - m[1].heapUsed()) / (n - half),
        (m[2].direct() - m[0].direct()) / n,
        (m[2].direct() - m[1].direct()) / (n - half));
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
  }
}
