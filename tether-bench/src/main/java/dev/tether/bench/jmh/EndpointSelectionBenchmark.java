package dev.tether.bench.jmh;

import dev.tether.EndpointSelection;
import dev.tether.ParsedProxy;
import dev.tether.Resolver;
import dev.tether.client.Candidate;
import dev.tether.client.ClientConfig;
import dev.tether.client.EndpointSelector;
import dev.tether.client.ProxySettings;
import dev.tether.transport.TransportSet;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: one run of {@link EndpointSelector#select} (the five steps of endpoint selection) over a
 * proxy with {@value #ENDPOINTS} tcp endpoints on IP literals {@code 127.0.0.1 .. 127.0.0.100},
 * with {@code RANDOM} (shuffle) and {@code ORDERED} selection. Literals never reach the resolver,
 * so no DNS is involved (the resolver here fails any lookup, to prove it). This is the work a proxy
 * does when it has no usable cached connection, and before every call when it does not cache one
 * ({@code withConnectionCached(false)}). Run with {@code java -cp
 * tether-bench/target/tether-bench.jar org.openjdk.jmh.Main EndpointSelectionBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class EndpointSelectionBenchmark {

  static final int ENDPOINTS = 100;
  private static final Resolver NO_DNS =
      host -> {
        throw new UnknownHostException("the benchmark uses IP literals only: " + host);
      };

  @Param({"RANDOM", "ORDERED"})
  public EndpointSelection selection;

  /** Non-null between setup and tear-down. */
  private TransportSet transports;

  /** Non-null between setup and tear-down. */
  private EndpointSelector selector;

  /** Non-null between setup and tear-down. */
  private ProxySettings proxy;

  @Setup(Level.Trial)
  public void buildSelector() {
    // One NIO event loop: the transports are only looked up, never used to connect.
    transports = new TransportSet("bench-selection", 1, true, null, null);
    selector =
        new EndpointSelector(
            transports, NO_DNS, ClientConfig.from(new Properties()), new Random(42));
    ParsedProxy parsed = ParsedProxy.parse(proxyString());
    proxy =
        ProxySettings.of(parsed.identity(), parsed.mode(), parsed.secure(), parsed.endpoints())
            .withSelection(selection);
  }

  /** {@code bench:tcp -h 127.0.0.1 -p 7000:tcp -h 127.0.0.2 -p 7000:...}, one endpoint per host. */
  static String proxyString() {
    StringBuilder s = new StringBuilder("bench");
    for (int i = 1; i <= ENDPOINTS; i++) {
      s.append(":tcp -h 127.0.0.").append(i).append(" -p 7000");
    }
    return s.toString();
  }

  @TearDown(Level.Trial)
  public void shutdown() {
    transports.shutdown();
  }

  @Benchmark
  public List<Candidate> select() {
    return selector.select(proxy);
  }
}
