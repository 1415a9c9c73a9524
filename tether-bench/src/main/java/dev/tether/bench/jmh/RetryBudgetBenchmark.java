package dev.tether.bench.jmh;

import dev.tether.internal.RetryBudget;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: what every call pays the runtime's retry budget when it starts, a clock read and a count in
 * the budget's window, as the runtime does it (one budget shared by every thread that makes calls).
 * Run with one and with two threads, since the count is shared: {@code java -cp
 * tether-bench/target/tether-bench.jar org.openjdk.jmh.Main RetryBudgetBenchmark -t 1} and {@code
 * -t 2}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RetryBudgetBenchmark {
  private final RetryBudget budget = RetryBudget.standard();

  @Benchmark
  public void recordCall() {
    budget.recordCall(System.nanoTime());
  }
}
