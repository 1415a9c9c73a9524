package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Nodes that are up and answer badly, on real sockets: three nodes, four callers, each balancing. A
 * node whose service throws on every call ("database down") is ejected before it fails one call in
 * twenty-five, its peers taking the rest; one that turns sick after a few hundred good calls is out
 * within 30 of its failed calls, its good history notwithstanding; a group whose nodes all fail
 * alike (the callers' own bad request) keeps every node.
 */
class SickNodeTest {
  private static final int CALLS = 1_200;

  /** Good calls a node that turns sick serves first: a long healthy history against it. */
  private static final int HEALTHY_CALLS = 300;

  /** A node's service that answers well for {@link #HEALTHY_CALLS} calls, then fails every one. */
  private static final class TurnsSick implements BooleanSupplier {
    final AtomicInteger served = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();

    @Override
    public boolean getAsBoolean() {
      if (served.incrementAndGet() <= HEALTHY_CALLS) {
        return false;
      }
      failed.incrementAndGet();
      return true;
    }
  }

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final ExecutorService callers = Executors.newFixedThreadPool(4);

  /** Read when the first node is ejected: how many calls the sick node had failed by then. */
  private IntSupplier sickFailures = () -> -1;

  private final AtomicInteger sickFailuresAtEjection = new AtomicInteger(-1);

  @AfterEach
  void stop() throws Exception {
    callers.shutdownNow();
    callers.awaitTermination(10, TimeUnit.SECONDS);
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /** A node whose service answers its name, or throws when {@code down}. */
  private String node(String name, boolean down) {
    return node(name, () -> down);
  }

  /** A node whose service answers its name, or throws when {@code down} says so for the call. */
  private String node(String name, BooleanSupplier down) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "node",
                (op, payload, ctx) -> {
                  if (op.equals("bad") || down.getAsBoolean()) {
                    throw new IllegalStateException(name + ": database down");
                  }
                  return name.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    return ":" + s.endpoints().get(0);
  }

  private Proxy proxy(String endpoints, LoadBalancing balancing) {
    Tether t =
        Tether.builder()
            .listener(
                e -> {
                  if (e.kind() == TetherEvent.Kind.NODE_EJECTED) {
                    sickFailuresAtEjection.compareAndSet(-1, sickFailures.getAsInt());
                  }
                  events.add(e);
                })
            .build();
    closeables.add(t);
    Proxy p = t.proxy("node" + endpoints).withLoadBalancing(balancing);
    p.connectAsync();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> t.status().nodes().stream().allMatch(n -> n.health().equals("ALIVE")));
    return p;
  }

  /**
   * {@link #CALLS} idempotent calls of {@code operation} from four callers; returns how many
   * failed.
   */
  private int failedOf(Proxy p, String operation) throws Exception {
    return failedOf(p, operation, CALLS);
  }

  /**
   * {@code calls} idempotent calls of {@code operation} from four callers; returns how many failed.
   */
  private int failedOf(Proxy p, String operation, int calls) throws Exception {
    AtomicInteger left = new AtomicInteger(calls);
    AtomicInteger failed = new AtomicInteger();
    List<CompletableFuture<Void>> done = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      done.add(
          CompletableFuture.runAsync(
              () -> {
                while (left.getAndDecrement() > 0) {
                  try {
                    p.invoke(operation, new byte[0], Idempotency.IDEMPOTENT);
                  } catch (RuntimeException e) {
                    failed.incrementAndGet();
                  }
                }
              },
              callers));
    }
    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    return failed.get();
  }

  @ParameterizedTest
  @EnumSource(
      value = LoadBalancing.class,
      names = {"ROUND_ROBIN", "LEAST_LOADED", "EPSILON_GREEDY", "RANDOM"})
  void nodeThatFailsEveryCallIsOutBeforeItFailsOneCallInTwentyFive(LoadBalancing balancing)
      throws Exception {
    Proxy p = proxy(node("sick", true) + node("second", false) + node("third", false), balancing);

    int failed = failedOf(p, "who");

    System.out.printf(
        "%s: a node failing every call: %d of %d idempotent calls failed%n",
        balancing, failed, CALLS);
    assertThat(failed).isLessThan(CALLS / 25);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.detail().contains("of its peers'")));
  }

  @ParameterizedTest
  @EnumSource(
      value = LoadBalancing.class,
      names = {"ROUND_ROBIN", "LEAST_LOADED"})
  void nodeThatTurnsSickAfterAHealthyHistoryIsOutWithinThirtyOfItsFailedCalls(
      LoadBalancing balancing) throws Exception {
    TurnsSick turning = new TurnsSick();
    sickFailures = turning.failed::get;
    String sick = node("turning", turning);
    Proxy p = proxy(sick + node("second", false) + node("third", false), balancing);

    failedOf(p, "who", 3_000);

    assertThat(turning.served.get()).isGreaterThan(HEALTHY_CALLS);
    TetherEvent ejected =
        await()
            .atMost(Duration.ofSeconds(5))
            .until(
                () ->
                    events.stream()
                        .filter(e -> e.kind() == TetherEvent.Kind.NODE_EJECTED)
                        .findFirst(),
                found -> found.isPresent())
            .orElseThrow();
    assertThat(ejected.endpoint()).endsWith(sick.substring(sick.lastIndexOf(" -p ")));
    assertThat(ejected.detail()).contains("of its last 40 calls against");
    assertThat(sickFailuresAtEjection.get()).isBetween(20, 30);
  }

  @ParameterizedTest
  @EnumSource(
      value = LoadBalancing.class,
      names = {"ROUND_ROBIN", "LEAST_LOADED", "EPSILON_GREEDY", "RANDOM"})
  void groupWhoseNodesAllFailAlikeKeepsEveryNode(LoadBalancing balancing) throws Exception {
    Proxy p = proxy(node("first", false) + node("second", false) + node("third", false), balancing);

    int failed = failedOf(p, "bad");

    assertThat(failed).isEqualTo(CALLS);
    assertThat(events).noneMatch(e -> e.kind() == TetherEvent.Kind.NODE_EJECTED);
  }
}
