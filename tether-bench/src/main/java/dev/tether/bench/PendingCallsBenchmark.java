package dev.tether.bench;

import dev.tether.internal.IntMap;
import io.netty.util.collection.IntObjectHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: the pending-call table of one connection in its steady state, {@code outstanding} calls with
 * sequential request ids, where each operation completes the oldest call and registers the next.
 *
 * <p>Compares Netty's {@code IntObjectHashMap} (identity hash: sequential ids form one run, which
 * each removal scans) with tether-core's {@link IntMap} (Fibonacci hashing). Run with {@code java
 * -cp tether-bench/target/tether-bench.jar org.openjdk.jmh.Main PendingCallsBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PendingCallsBenchmark {

  private static final ResponseHandler NO_OP = new NoOpHandler();

  @Param({"1", "16", "128", "1024"})
  public int outstanding;

  private final IntObjectHashMap<ResponseHandler> nettyMap = new IntObjectHashMap<>();
  private final IntMap<ResponseHandler> pendingCalls = new IntMap<>();
  private int nextId;

  @Setup
  public void fillWindow() {
    for (nextId = 0; nextId < outstanding; nextId++) {
      nettyMap.put(nextId, NO_OP);
      pendingCalls.put(nextId, NO_OP);
    }
  }

  @Benchmark
  public ResponseHandler nettyIntObjectHashMap() {
    int id = nextId++;
    nettyMap.put(id, NO_OP);
    return nettyMap.remove(id - outstanding);
  }

  @Benchmark
  public ResponseHandler pendingCalls() {
    int id = nextId++;
    pendingCalls.put(id, NO_OP);
    return pendingCalls.remove(id - outstanding);
  }

  private static final class NoOpHandler implements ResponseHandler {
    @Override
    public void onResponse(byte[] response) {}

    @Override
    public void onFailure(Throwable cause) {}
  }
}
