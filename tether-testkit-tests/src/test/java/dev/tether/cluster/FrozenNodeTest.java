package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
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
 * accepts connections and never answers HELLO cost no idempotent call, and no call waits on them
 * once they are known not to be ready: a balancer picks only nodes whose connection is ready.
 */
class FrozenNodeTest {
  /** The cluster: heartbeats at 250 ms / 750 ms, a 2 s invocation timeout. */
  private static final Duration INVOCATION_TIMEOUT = Duration.ofSeconds(2);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final Map<String, AtomicInteger> served = new ConcurrentHashMap<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong slowestNanos = new AtomicLong();

  /** When the frozen node froze, and when its group found it dead: marks the callers time from. */
  private volatile long frozenAt = Long.MAX_VALUE;

  private volatile long foundDeadAt = Long.MAX_VALUE;
  private final AtomicLong slowestSinceFrozen = new AtomicLong();
  private final AtomicLong slowestSinceFoundDead = new AtomicLong();

  /** The slowest call since then of a control caller that only calls a healthy node. */
  private final AtomicLong controlSlowestSinceFoundDead = new AtomicLong();

  private volatile Tether tether;
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
    tether = t;
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
                  long took = System.nanoTime() - start;
                  slowestNanos.accumulateAndGet(took, Math::max);
                  if (start >= frozenAt) {
                    slowestSinceFrozen.accumulateAndGet(took, Math::max);
                  }
                  if (start >= foundDeadAt) {
                    slowestSinceFoundDead.accumulateAndGet(took, Math::max);
                  }
                  completed.incrementAndGet();
                }
              },
              "caller-" + i);
      t.setDaemon(true);
      callers.add(t);
      t.start();
    }
  }

  /**
   * A fifth caller, on a runtime of its own, calling only {@code healthy} at the same time: what it
   * sees is what the machine's load alone does to a call (a loaded machine stalls every thread now
   * and then, for seconds at worst).
   */
  private void startControl(FaultProxy healthy) {
    Tether t = Tether.builder().build();
    closeables.add(t);
    Proxy p = t.proxy("node:" + healthy.endpoint()).withInvocationTimeout(Duration.ofSeconds(20));
    p.invoke("who", new byte[0], Idempotency.IDEMPOTENT);
    Thread control =
        new Thread(
            () -> {
              while (running.get()) {
                long start = System.nanoTime();
                try {
                  p.invoke("who", new byte[0], Idempotency.IDEMPOTENT);
                } catch (RuntimeException e) {
                  failures.add(e);
                }
                if (start >= foundDeadAt) {
                  controlSlowestSinceFoundDead.accumulateAndGet(
                      System.nanoTime() - start, Math::max);
                }
              }
            },
            "control");
    control.setDaemon(true);
    callers.add(control);
    control.start();
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
  void nodeFrozenMidRunCostsNoIdempotentCallAndNoCallWaitsOnItOnceFoundDead(
      LoadBalancing balancing) {
    FaultProxy frozen = node("frozen");
    FaultProxy second = node("second");
    FaultProxy third = node("third");
    startCallers(
        proxy(
            ":" + frozen.endpoint() + ":" + second.endpoint() + ":" + third.endpoint(),
            balancing,
            3));
    startControl(second);
    timeFor(500, Duration.ofSeconds(20)); // every node connected and measured
    assertThat(served("frozen")).isPositive();

    AtomicBoolean foundDead = new AtomicBoolean();
    tether.addListener(
        e -> {
          if (e.kind() == TetherEvent.Kind.HEARTBEAT_TIMEOUT && isOf(frozen, e.endpoint())) {
            foundDead.set(true);
          }
        });
    frozenAt = System.nanoTime();
    frozen.freeze();
    // Heartbeats (250 ms idle, 750 ms to dead) find the frozen connection dead; the calls it held
    // are retried on another node within their deadline.
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).untilTrue(foundDead);
    foundDeadAt = System.nanoTime();
    int frozenServed = served("frozen");
    // Its reconnects are accepted and never answered, so it stays unready; a call that waited on
    // it would wait out its 2 s deadline. Three seconds cover its first redials. Each call is held
    // to a bound (not a pace compared with the pace before, which load on a shared machine moves
    // between the two windows), beyond what the control saw at the same time.
    long from = completed.get();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(5))
        .until(
            () ->
                System.nanoTime() - foundDeadAt >= Duration.ofSeconds(3).toNanos()
                    && completed.get() >= from + 1_000);
    long afterwards = completed.get() - from;

    System.out.printf(
        "%s: a node frozen mid-run: found dead after %d ms, the slowest call since the freeze"
            + " %d ms; %d calls in the next %d ms, the slowest %d ms (the control's %d ms);"
            + " %d failed%n",
        balancing,
        (foundDeadAt - frozenAt) / 1_000_000,
        slowestSinceFrozen.get() / 1_000_000,
        afterwards,
        (System.nanoTime() - foundDeadAt) / 1_000_000,
        slowestSinceFoundDead.get() / 1_000_000,
        controlSlowestSinceFoundDead.get() / 1_000_000,
        failures.size());
    assertThat(failures).isEmpty();
    assertThat(Duration.ofNanos(slowestSinceFoundDead.get()))
        .as("the slowest call started after the frozen node was found dead")
        .isLessThan(Duration.ofSeconds(1).plusNanos(controlSlowestSinceFoundDead.get()));
    assertThat(served("frozen")).isEqualTo(frozenServed);
  }

  /** Whether {@code endpoint} names {@code node}'s address. */
  private static boolean isOf(FaultProxy node, String endpoint) {
    return endpoint != null && endpoint.matches(".* -p " + node.port() + "( .*)?");
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
