package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.testkit.FaultProxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Nodes that are up but cannot take a call, on real sockets: three nodes, four callers, each
 * balancing. A node frozen mid-run (a fault proxy that accepts and moves no byte) and a node that
 * accepts connections and never answers HELLO cost no idempotent call, and the callers keep their
 * pace: a balancer picks only nodes whose connection is ready.
 */
class FrozenNodeTest {
  /** The cluster: heartbeats at 250 ms / 750 ms, a 2 s invocation timeout. */
  private static final Duration INVOCATION_TIMEOUT = Duration.ofSeconds(2);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final Map<String, AtomicInteger> served = new ConcurrentHashMap<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong slowestNanos = new AtomicLong();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final List<Thread> callers = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    running.set(false);
    for (Thread t : callers) {
      t.join(10_000);
    }
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private int served(String node) {
    return served.computeIfAbsent(node, k -> new AtomicInteger()).get();
  }

  /** A node named {@code name} behind its own fault proxy. */
  private FaultProxy node(String name) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "node",
                (op, payload, ctx) -> {
                  served.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                  return name.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    FaultProxy fp = FaultProxy.start("127.0.0.1", s.endpoints().get(0).port());
    closeables.add(fp);
    return fp;
  }

  /**
   * A proxy over {@code endpoints} whose group has connected {@code alive} nodes, so the timed part
   * of a test is the calls alone, not a cold JVM's first connections.
   */
  private Proxy proxy(String endpoints, LoadBalancing balancing, int alive) {
    Tether t =
        Tether.builder()
            .property("tether.heartbeat.readerIdle", "250ms")
            .property("tether.heartbeat.idleTimeout", "750ms")
            .build();
    closeables.add(t);
    Proxy p =
        t.proxy("node" + endpoints)
            .withLoadBalancing(balancing)
            .withInvocationTimeout(INVOCATION_TIMEOUT);
    p.connectAsync();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                t.status().nodes().stream().filter(n -> n.health().equals("ALIVE")).count()
                    == alive);
    return p;
  }

  /** Four callers making idempotent calls until the test ends; every failure is kept. */
  private void startCallers(Proxy p) {
    for (int i = 0; i < 4; i++) {
      Thread t =
          new Thread(
              () -> {
                while (running.get()) {
                  long start = System.nanoTime();
                  try {
                    p.invoke("who", new byte[0], Idempotency.IDEMPOTENT);
                  } catch (RuntimeException e) {
                    failures.add(e);
                  }
                  slowestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                  completed.incrementAndGet();
                }
              },
              "caller-" + i);
      t.setDaemon(true);
      callers.add(t);
      t.start();
    }
  }

  /** Waits until {@code calls} more calls completed; returns how many nanoseconds that took. */
  private long timeFor(long calls, Duration atMost) {
    long from = completed.get();
    long start = System.nanoTime();
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> completed.get() >= from + calls);
    return System.nanoTime() - start;
  }

  @ParameterizedTest
  @EnumSource(
      value = LoadBalancing.class,
      names = {"ROUND_ROBIN", "LEAST_LOADED", "EPSILON_GREEDY", "RANDOM"})
  void nodeFrozenMidRunCostsNoIdempotentCallAndTheCallersKeepTheirPace(LoadBalancing balancing) {
    FaultProxy frozen = node("frozen");
    FaultProxy second = node("second");
    FaultProxy third = node("third");
    startCallers(
        proxy(
            ":" + frozen.endpoint() + ":" + second.endpoint() + ":" + third.endpoint(),
            balancing,
            3));
    timeFor(500, Duration.ofSeconds(20)); // every node connected and measured
    // The pace before, over half a second at least: a burst of a few dozen milliseconds is noise
    // on a loaded machine, and the freeze's allowance is measured against it.
    long before = 0;
    long beforeNanos = 0;
    while (beforeNanos < Duration.ofMillis(500).toNanos()) {
      beforeNanos += timeFor(2_000, Duration.ofSeconds(20));
      before += 2_000;
    }
    assertThat(served("frozen")).isPositive();

    frozen.freeze();
    // As many calls as three seconds at the pace before: the frozen node's connection is found dead
    // within a second and its handshake-less reconnects take no call, so they fit in six.
    long during = Math.max(before, before * 3_000_000_000L / beforeNanos);
    long duringNanos = timeFor(during, Duration.ofSeconds(60));
    int frozenServed = served("frozen");

    System.out.printf(
        "%s: a node frozen mid-run: %d calls before the freeze took %d ms, %d during it %d ms;"
            + " %d failed%n",
        balancing,
        before,
        beforeNanos / 1_000_000,
        during,
        duringNanos / 1_000_000,
        failures.size());
    assertThat(failures).isEmpty();
    assertThat(duringNanos)
        .as(
            "%d calls before the freeze took %d ms, %d during it %d ms",
            before, beforeNanos / 1_000_000, during, duringNanos / 1_000_000)
        .isLessThanOrEqualTo(2 * during * beforeNanos / before);
    assertThat(served("frozen")).isEqualTo(frozenServed);
  }

  @ParameterizedTest
  @EnumSource(
      value = LoadBalancing.class,
      names = {"ROUND_ROBIN", "LEAST_LOADED", "EPSILON_GREEDY", "RANDOM"})
  void nodeThatAcceptsAndNeverAnswersHelloTakesNoCall(LoadBalancing balancing) throws Exception {
    // The kernel completes its TCP handshakes from the backlog; nothing ever reads or answers.
    ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
    closeables.add(silent);
    FaultProxy second = node("second");
    FaultProxy third = node("third");
    String endpoints =
        ":tcp -h 127.0.0.1 -p "
            + silent.getLocalPort()
            + ":"
            + second.endpoint()
            + ":"
            + third.endpoint();
    startCallers(proxy(endpoints, balancing, 2));

    // Far less time than the handshake timeout (10 s): no call waits on the silent node.
    long nanos = timeFor(4_000, Duration.ofSeconds(8));

    System.out.printf(
        "%s: a node that never answers HELLO: 4000 calls in %d ms, the slowest %d ms; %d failed%n",
        balancing, nanos / 1_000_000, slowestNanos.get() / 1_000_000, failures.size());
    assertThat(failures).isEmpty();
    assertThat(Duration.ofNanos(slowestNanos.get())).isLessThan(Duration.ofSeconds(1));
    assertThat(served("second")).isPositive();
    assertThat(served("third")).isPositive();
  }
}
