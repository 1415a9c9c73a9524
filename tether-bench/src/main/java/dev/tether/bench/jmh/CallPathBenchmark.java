package dev.tether.bench.jmh;

import dev.tether.CallContext;
import dev.tether.ExecutionMode;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * JMH: the cost, in time and in bytes allocated, of one untyped twoway call with a 64-byte payload
 * through Tether's public client API ({@link Proxy#invoke} and {@link Proxy#invokeAsync}) over one
 * loopback TCP connection, in steady state.
 *
 * <p>{@code server} picks the other end of the connection:
 *
 * <ul>
 *   <li>{@code reflector}: {@link ReflectorServer}, a raw-Netty server that speaks just enough of
 *       the protocol to echo each REQUEST's body and allocates no objects per call. JMH's gc
 *       profiler counts every thread of the JVM, so {@code gc.alloc.rate.norm} is then the
 *       <em>client's</em> allocation per call: the figure behind the budget of 256 bytes per
 *       untyped call.
 *   <li>{@code tether-direct}: a real {@link TetherServer} running the echo service on its event
 *       loop ({@link ExecutionMode#DIRECT}). Its {@code gc.alloc.rate.norm} is client <em>plus
 *       server</em>; the difference from {@code reflector} is what the server adds.
 * </ul>
 *
 * <p>Benchmarks: {@code blockingCall} makes one {@code proxy.invoke} per operation (one call in
 * flight, so it also measures the round trip and the thread wake-ups on both sides); {@code
 * asyncBatch16} issues 16 {@code invokeAsync} calls, then waits for all 16, and reports per call.
 * The payload array is made once; the client's runtime and connection are set up once per trial, so
 * connection setup is never measured. Run with {@code java -cp tether-bench/target/tether-bench.jar
 * org.openjdk.jmh.Main CallPathBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
public class CallPathBenchmark {

  /** Calls in flight per operation of {@link #asyncBatch16}. */
  static final int BATCH = 16;

  static final int PAYLOAD_BYTES = 64;
  static final String SERVICE = "bench";
  static final String OPERATION = "echo";

  @Param({"reflector", "tether-direct"})
  public String server;

  private final byte[] payload = new byte[PAYLOAD_BYTES];
  private final CompletableFuture<?>[] inFlight = new CompletableFuture<?>[BATCH];

  /** Non-null between setup and tear-down when {@code server} is {@code reflector}. */
  private ReflectorServer reflector;

  /** Non-null between setup and tear-down when {@code server} is {@code tether-direct}. */
  private TetherServer tetherServer;

  /** Non-null between setup and tear-down. */
  private Tether tether;

  /** Non-null between setup and tear-down. */
  private Proxy proxy;

  @Setup(Level.Trial)
  public void connect() {
    Arrays.fill(payload, (byte) 'x');
    String proxyString =
        switch (server) {
          case "reflector" -> {
            reflector = ReflectorServer.start();
            yield reflector.proxyString(SERVICE);
          }
          case "tether-direct" -> {
            tetherServer =
                TetherServer.builder()
                    .endpoints("tcp -h 127.0.0.1 -p 0")
                    .executionMode(ExecutionMode.DIRECT)
                    .service(SERVICE, CallPathBenchmark::echo)
                    .build()
                    .start();
            yield tetherServer.proxyString(SERVICE);
          }
          default -> throw new IllegalArgumentException("unknown server: " + server);
        };
    tether = Tether.create();
    proxy = tether.proxy(proxyString);
    proxy.connectAsync().join();
    checkEcho();
  }

  /** Fails the trial at once if the server does not echo, rather than measuring failures. */
  private void checkEcho() {
    byte[] answer = proxy.invoke(OPERATION, payload);
    if (!Arrays.equals(answer, payload)) {
      throw new IllegalStateException("the " + server + " server did not echo the payload");
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    if (tether != null) {
      tether.close();
    }
    if (reflector != null) {
      reflector.close();
    }
    if (tetherServer != null) {
      tetherServer.close();
    }
  }

  private static byte[] echo(String operation, byte[] request, CallContext context) {
    return request;
  }

  /** One blocking call: the caller waits for its answer before the next. */
  @Benchmark
  public byte[] blockingCall() {
    return proxy.invoke(OPERATION, payload);
  }

  /** Sixteen calls in flight at once, then wait for all of them; the score is per call. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void asyncBatch16(Blackhole answers) {
    for (int i = 0; i < BATCH; i++) {
      inFlight[i] = proxy.invokeAsync(OPERATION, payload);
    }
    for (int i = 0; i < BATCH; i++) {
      answers.consume(inFlight[i].join());
      inFlight[i] = null;
    }
  }
}
