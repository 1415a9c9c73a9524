package dev.tether.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.HdrHistogram.Histogram;

/**
 * Runs one {@link StreamScenario}: a fresh client connects to the system's server (a fresh one in
 * this JVM, or the system's server process), opens the streams, lets them run through the warm-up,
 * measures for the measured phase (items, ages, CPU of both processes), then cancels them and
 * closes the client. Bounded by the two phases plus the client's close.
 */
final class StreamRunner {
  private final Duration warmup;
  private final Duration measure;
  private final int itemBytes;
  private final ServerProcessPool serverProcesses;

  StreamRunner(
      Duration warmup, Duration measure, int itemBytes, ServerProcessPool serverProcesses) {
    this.warmup = warmup;
    this.measure = measure;
    this.itemBytes = itemBytes;
    this.serverProcesses = serverProcesses;
  }

  /** What one run measured. */
  record Result(
      StreamScenario scenario,
      long items,
      long measuredNanos,
      Histogram agesNanos,
      CpuUse cpu,
      String problem) {
    double itemsPerSecond() {
      return measuredNanos == 0 ? 0 : items * 1e9 / measuredNanos;
    }

    double percentileMicros(double percentile) {
      return agesNanos.getTotalCount() == 0
          ? Double.NaN
          : agesNanos.getValueAtPercentile(percentile) / 1_000.0;
    }

    /**
     * CPU microseconds per item: {@code server} false is this process's, true the server process's
     * (NaN if none).
     */
    double cpuMicrosPerItem(boolean server) {
      long nanos = server ? cpu.serverNanos() : cpu.clientNanos();
      return items == 0 || nanos < 0 ? Double.NaN : nanos / 1_000.0 / items;
    }

    double totalCpuMicrosPerItem() {
      double server = cpuMicrosPerItem(true);
      return cpuMicrosPerItem(false) + (Double.isNaN(server) ? 0 : server);
    }

    boolean clean() {
      return problem == null;
    }
  }

  Result run(StreamScenario scenario) throws Exception {
    return run(scenario, warmup, measure);
  }

  /** Runs {@code scenario} unmeasured for {@code length}, so the JIT has compiled both sides. */
  void warmUp(StreamScenario scenario, Duration length) throws Exception {
    run(scenario, length, Duration.ZERO);
  }

  private Result run(StreamScenario scenario, Duration warm, Duration measured) throws Exception {
    BenchServer inJvm = null;
    ServerProcess process = null;
    StreamClient client = scenario.system().client().get();
    StreamMeter meter = new StreamMeter();
    List<StreamClient.Cancellable> open = new ArrayList<>();
    try {
      int port;
      if (scenario.placement() == Placement.ONE_JVM) {
        inJvm = scenario.system().server().server().get();
        port = inJvm.start();
      } else {
        process = serverProcesses.serverOf(scenario.system().server());
        port = process.port();
      }
      client.connect(port);
      for (int i = 0; i < scenario.streams(); i++) {
        StreamMeter.Sink sink = meter.newSink();
        open.add(
            scenario.shape() == StreamScenario.Shape.FEED
                ? client.feed(itemBytes, sink)
                : client.echo(itemBytes, sink));
      }
      Thread.sleep(warm.toMillis()); // a benchmark's phase, not a test's wait
      CpuUse before = CpuUse.sample(CpuClock.PROCESS, cpuOf(process));
      meter.measureFor(measured.toNanos()); // items count from now for exactly the phase's length
      Thread.sleep(measured.toMillis());
      CpuUse used = CpuUse.sample(CpuClock.PROCESS, cpuOf(process)).minus(before);
      open.forEach(StreamClient.Cancellable::cancel);
      String problem =
          meter.failure() != null
              ? "a stream failed: " + meter.failure()
              : meter.itemsSeen() == 0 ? "no item arrived" : null;
      return new Result(scenario, meter.items(), measured.toNanos(), meter.ages(), used, problem);
    } finally {
      open.forEach(StreamClient.Cancellable::cancel);
      client.close();
      if (inJvm != null) {
        inJvm.close();
      }
    }
  }

  private static OptionalLong cpuOf(ServerProcess server) {
    return server == null ? OptionalLong.empty() : OptionalLong.of(server.cpuNanos());
  }
}
