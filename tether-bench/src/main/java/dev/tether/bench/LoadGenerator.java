package dev.tether.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * Runs one scenario as a closed loop: {@code concurrency} slots each keep one call outstanding over
 * the system's single connection, first for the warm-up phase (not recorded), then for the measured
 * phase, after which the slots stop and the connection drains.
 *
 * <p>Each phase is bounded in time, and so is the drain: a call that never returns makes the run
 * report a problem instead of hanging. A failed call stops its slot.
 */
public final class LoadGenerator {

  private final Duration warmup;
  private final Duration measure;
  private final Duration drainTimeout;
  private final NanoClock clock;
  private final Function<Scenario, BenchSystem> placement;
  private final CpuClock cpu;

  /** A generator whose systems run in this JVM, client and server together. */
  public LoadGenerator(Duration warmup, Duration measure, Duration drainTimeout, NanoClock clock) {
    this(
        warmup,
        measure,
        drainTimeout,
        clock,
        scenario -> scenario.system().inJvm(),
        CpuClock.PROCESS);
  }

  /**
   * @param warmup how long calls run before recording starts
   * @param measure how long calls are recorded
   * @param drainTimeout how long outstanding calls may take to return once the measured phase ends
   * @param clock the clock latencies and the measured phase are read from
   * @param placement makes the system of one scenario: in this JVM, or a client of a server process
   * @param cpu reads this process's CPU time, sampled around the measured phase
   */
  public LoadGenerator(
      Duration warmup,
      Duration measure,
      Duration drainTimeout,
      NanoClock clock,
      Function<Scenario, BenchSystem> placement,
      CpuClock cpu) {
    this.warmup = warmup;
    this.measure = measure;
    this.drainTimeout = drainTimeout;
    this.clock = clock;
    this.placement = placement;
    this.cpu = cpu;
  }

  /**
   * Starts a fresh instance of the scenario's system, drives it, and closes it. A system that
   * cannot start gives a result without calls that says why.
   */
  public RunResult run(Scenario scenario) throws InterruptedException {
    return run(scenario, warmup, measure);
  }

  /**
   * Drives a fresh instance of the scenario's system for {@code duration} and discards the result,
   * so that the first measured scenario of a system does not pay for compiling its code.
   */
  public void warmUp(Scenario scenario, Duration duration) throws InterruptedException {
    run(scenario, duration, Duration.ZERO);
  }

  private RunResult run(Scenario scenario, Duration warmupTime, Duration measureTime)
      throws InterruptedException {
    try (BenchSystem system = placement.apply(scenario)) {
      try {
        system.start();
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        return RunResult.of(
            scenario, new Histogram(3), 0, CpuUse.NONE, 0, "could not start: " + describe(e));
      }
      System.gc(); // start each measurement from an empty young generation
      return drive(system, scenario, warmupTime, measureTime);
    }
  }

  private RunResult drive(
      BenchSystem system, Scenario scenario, Duration warmupTime, Duration measureTime)
      throws InterruptedException {
    RunControl control = new RunControl(scenario.concurrency());
    List<CallSlot> slots = startSlots(system, scenario, control);

    control.awaitAllStopped(warmupTime); // returns early only if every slot failed
    long measureStartNanos = clock.nanoTime();
    CpuUse cpuAtStart = CpuUse.sample(cpu, system);
    control.transitionTo(RunControl.Phase.MEASURE);
    control.awaitAllStopped(measureTime);
    control.transitionTo(RunControl.Phase.STOP);
    long measuredNanos = clock.nanoTime() - measureStartNanos;
    CpuUse cpuUsed = CpuUse.sample(cpu, system).minus(cpuAtStart);

    boolean drained = control.awaitAllStopped(drainTimeout);
    String stuck =
        drained ? "" : control.slotsStillRunning() + " calls did not return within " + drainTimeout;
    return summarize(scenario, slots, measuredNanos, cpuUsed, stuck);
  }

  private List<CallSlot> startSlots(BenchSystem system, Scenario scenario, RunControl control) {
    byte[] payload = payload(scenario.payloadBytes());
    List<CallSlot> slots = new ArrayList<>(scenario.concurrency());
    for (int i = 0; i < scenario.concurrency(); i++) {
      slots.add(new CallSlot(system, payload, control, clock));
    }
    slots.forEach(CallSlot::start);
    return slots;
  }

  private static RunResult summarize(
      Scenario scenario, List<CallSlot> slots, long measuredNanos, CpuUse cpuUsed, String stuck) {
    Histogram merged = new Histogram(3);
    int failedSlots = 0;
    Throwable firstFailure = null;
    for (CallSlot slot : slots) {
      merged.add(slot.latencyNanos());
      if (slot.failure() != null) {
        failedSlots++;
        firstFailure = firstFailure == null ? slot.failure() : firstFailure;
      }
    }
    String problem = firstFailure != null ? describe(firstFailure) : stuck;
    return RunResult.of(scenario, merged, measuredNanos, cpuUsed, failedSlots, problem);
  }

  private static String describe(Throwable failure) {
    return failure.getClass().getSimpleName()
        + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
  }

  /** A request body of {@code size} bytes with a recognizable pattern, so echoes can be checked. */
  static byte[] payload(int size) {
    byte[] payload = new byte[size];
    for (int i = 0; i < size; i++) {
      payload[i] = (byte) (i * 31 + 7);
    }
    return payload;
  }
}
