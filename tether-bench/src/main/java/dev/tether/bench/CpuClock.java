package dev.tether.bench;

import java.lang.management.ManagementFactory;

/** Reads the CPU time, all threads, user plus system, that this process has used so far. */
@FunctionalInterface
public interface CpuClock {

  /** The JVM's own account ({@code com.sun.management.OperatingSystemMXBean#getProcessCpuTime}). */
  CpuClock PROCESS =
      () ->
          ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
              .getProcessCpuTime();

  long cpuNanos();
}
