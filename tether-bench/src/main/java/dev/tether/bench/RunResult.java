package dev.tether.bench;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * What one scenario measured.
 *
 * @param scenario what ran
 * @param calls calls completed during the measured phase
 * @param callsPerSecond {@code calls} divided by the measured phase's length
 * @param p50Micros median latency, in microseconds
 * @param p99Micros 99th percentile latency, in microseconds
 * @param p999Micros 99.9th percentile latency, in microseconds
 * @param maxMicros the longest call, in microseconds
 * @param cpu the CPU time used during the measured phase, by this process and by a server process
 * @param failedSlots slots stopped by a failed call (each slot stops at its first failure)
 * @param problem what went wrong, for a reader: the first failure, or calls that never returned;
 *     empty when the run was clean
 */
public record RunResult(
    Scenario scenario,
    long calls,
    double callsPerSecond,
    double p50Micros,
    double p99Micros,
    double p999Micros,
    double maxMicros,
    CpuUse cpu,
    int failedSlots,
    String problem) {

  /**
   * Summarizes a measured phase of {@code measuredNanos} whose latencies are in {@code
   * latencyNanos}.
   */
  static RunResult of(
      Scenario scenario,
      Histogram latencyNanos,
      long measuredNanos,
      CpuUse cpu,
      int failedSlots,
      String problem) {
    long calls = latencyNanos.getTotalCount();
    double seconds = measuredNanos / (double) TimeUnit.SECONDS.toNanos(1);
    return new RunResult(
        scenario,
        calls,
        seconds > 0 ? calls / seconds : 0,
        micros(latencyNanos, 50),
        micros(latencyNanos, 99),
        micros(latencyNanos, 99.9),
        latencyNanos.getMaxValue() / 1_000.0,
        cpu,
        failedSlots,
        problem);
  }

  private static double micros(Histogram latencyNanos, double percentile) {
    return latencyNanos.getValueAtPercentile(percentile) / 1_000.0;
  }

  /**
   * This process's CPU time per measured call, in microseconds: client and server in one-JVM mode.
   */
  public double clientCpuMicrosPerCall() {
    return perCall(cpu.clientNanos());
  }

  /**
   * The server process's CPU time per measured call, in microseconds; NaN when the server shared
   * this JVM.
   */
  public double serverCpuMicrosPerCall() {
    return cpu.serverNanos() < 0 ? Double.NaN : perCall(cpu.serverNanos());
  }

  /** Client plus server CPU time per measured call, in microseconds. */
  public double totalCpuMicrosPerCall() {
    return perCall(cpu.clientNanos() + Math.max(0, cpu.serverNanos()));
  }

  private double perCall(long nanos) {
    return calls == 0 ? Double.NaN : nanos / 1_000.0 / calls;
  }

  /** Whether every call succeeded and every slot drained. */
  public boolean clean() {
    return failedSlots == 0 && problem.isEmpty();
  }
}
