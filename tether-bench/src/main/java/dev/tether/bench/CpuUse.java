package dev.tether.bench;

/**
 * CPU time, at one moment or over an interval: this process's (the client's, and in one-JVM mode
 * the server's too) and a server process's of its own.
 *
 * @param clientNanos this process's CPU time
 * @param serverNanos the server process's CPU time; -1 when the server runs in this process
 */
public record CpuUse(long clientNanos, long serverNanos) {

  /** No CPU time: the use of a run that never started. */
  static final CpuUse NONE = new CpuUse(0, -1);

  /** This process's CPU time now, and that of {@code system}'s server process when it has one. */
  static CpuUse sample(CpuClock cpu, BenchSystem system) {
    return sample(cpu, system.serverCpuNanos());
  }

  /**
   * This process's CPU time now, and {@code serverNanos} of a server process, when there is one.
   */
  static CpuUse sample(CpuClock cpu, java.util.OptionalLong serverNanos) {
    return new CpuUse(cpu.cpuNanos(), serverNanos.orElse(-1));
  }

  /** The use between {@code earlier} and this sample. */
  CpuUse minus(CpuUse earlier) {
    long server =
        serverNanos < 0 || earlier.serverNanos < 0 ? -1 : serverNanos - earlier.serverNanos;
    return new CpuUse(clientNanos - earlier.clientNanos, server);
  }
}
