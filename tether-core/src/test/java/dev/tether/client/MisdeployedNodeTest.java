package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Attempt;
import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.OperationNotFoundException;
import dev.tether.Proxy;
import dev.tether.ServiceNotFoundException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A node deployed with another build (docs/reliability.md): over real connections, a node of a
 * load-balanced group that answers it has no such service or operation sends the call to a peer,
 * idempotent or not (it ran nothing), and is skipped for that service; the call fails only when
 * every node tried answered so, naming them, and a proxy's only server fails it at once.
 */
class MisdeployedNodeTest {
  private static final int CALLERS = 4;
  private static final int CALLS_PER_CALLER = 150;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  /** The client runtime of the test's group. */
  private Tether client;

  /** How many times each call (by its payload) ran, on whichever server. */
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /** A server of the right build: "node" serves every operation and counts what it runs. */
  private TetherServer serving(AtomicInteger ranHere) {
    return start(
        TetherServer.builder()
            .service(
                "node",
                (op, payload, ctx) -> {
                  ranHere.incrementAndGet();
                  runs.computeIfAbsent(
                          new String(payload, StandardCharsets.UTF_8), k -> new AtomicInteger())
                      .incrementAndGet();
                  return payload;
                }));
  }

  /** An older build, whose "node" has only this operation. */
  interface OldNode {
    String whoAmI();
  }

  /** How a node is deployed without what the calls need. */
  enum Misdeployed {
    /** The build has no "node" service at all: SERVICE_NOT_FOUND. */
    WITHOUT_THE_SERVICE,
    /** The build's "node" lacks the operation called: OPERATION_NOT_FOUND. */
    WITHOUT_THE_OPERATION
  }

  private TetherServer misdeployed(Misdeployed how) {
    TetherServer.Builder b = TetherServer.builder();
    return start(
        how == Misdeployed.WITHOUT_THE_SERVICE
            ? b.service("other", (op, payload, ctx) -> payload)
            : b.service("node", OldNode.class, () -> "old"));
  }

  private TetherServer start(TetherServer.Builder builder) {
    TetherServer s = builder.endpoints("tcp -h 127.0.0.1 -p 0").build().start();
    closeables.add(s);
    return s;
  }

  private Proxy group(LoadBalancing balancing, TetherServer... nodes) {
    Tether t = Tether.builder().listener(events::add).build();
    closeables.add(t);
    client = t;
    StringBuilder proxy = new StringBuilder("node");
    for (TetherServer n : nodes) {
      proxy.append(':').append(n.endpoints().get(0));
    }
    return t.proxy(proxy.toString())
        .withLoadBalancing(balancing)
        .withInvocationTimeout(Duration.ofSeconds(10));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Waits until every retry the runtime counted has reached the listener: events are delivered on a
   * thread of their own, so a call can end before its retry's event arrives.
   */
  private void awaitEveryRetryEvent() {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                events.stream().filter(e -> e.kind() == TetherEvent.Kind.RETRY).count()
                    == client.status().retries());
  }

  private long notFoundRetries() {
    return events.stream()
        .filter(e -> e.kind() == TetherEvent.Kind.RETRY && e.detail().contains("NOT_FOUND"))
        .count();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = LoadBalancing.class,
      names = {"ROUND_ROBIN", "LEAST_LOADED", "EPSILON_GREEDY", "RANDOM"})
  void nodeWithoutTheServiceFailsNoCallAPeerCanServeAndEachCallRunsOnce(LoadBalancing balancing)
      throws Exception {
    fourCallersAgainstOneMisdeployedNode(balancing, Misdeployed.WITHOUT_THE_SERVICE);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = LoadBalancing.class,
      names = {"ROUND_ROBIN", "LEAST_LOADED", "EPSILON_GREEDY", "RANDOM"})
  void nodeWithoutTheOperationFailsNoCallAPeerCanServeAndEachCallRunsOnce(LoadBalancing balancing)
      throws Exception {
    fourCallersAgainstOneMisdeployedNode(balancing, Misdeployed.WITHOUT_THE_OPERATION);
  }

  /**
   * Three nodes, one misdeployed, four callers making idempotent and non-idempotent calls alike:
   * every call succeeds and ran exactly once, and the misdeployed node, once it answered, is
   * skipped (only calls already on their way to it meet it).
   */
  private void fourCallersAgainstOneMisdeployedNode(LoadBalancing balancing, Misdeployed how)
      throws Exception {
    AtomicInteger ranOnA = new AtomicInteger();
    AtomicInteger ranOnB = new AtomicInteger();
    TetherServer a = serving(ranOnA);
    TetherServer wrong = misdeployed(how);
    TetherServer b = serving(ranOnB);
    Proxy p = group(balancing, a, wrong, b);

    ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
    List<Future<List<Throwable>>> done = new ArrayList<>();
    for (int c = 0; c < CALLERS; c++) {
      int caller = c;
      done.add(
          callers.submit(
              () -> {
                List<Throwable> failures = new ArrayList<>();
                for (int i = 0; i < CALLS_PER_CALLER; i++) {
                  String id = caller + "-" + i;
                  Idempotency idempotency =
                      i % 2 == 0 ? Idempotency.IDEMPOTENT : Idempotency.NOT_IDEMPOTENT;
                  try {
                    assertThat(p.invoke("work", bytes(id), idempotency)).isEqualTo(bytes(id));
                  } catch (RuntimeException e) {
                    failures.add(e);
                  }
                }
                return failures;
              }));
    }
    List<Throwable> failures = new ArrayList<>();
    try {
      for (Future<List<Throwable>> f : done) {
        failures.addAll(f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      callers.shutdownNow();
    }

    int calls = CALLERS * CALLS_PER_CALLER;
    awaitEveryRetryEvent();
    System.out.printf(
        "%s, a node %s: %d calls (half not idempotent), %d met it, %d failed%n",
        balancing,
        how.name().toLowerCase(Locale.ROOT).replace('_', ' '),
        calls,
        notFoundRetries(),
        failures.size());
    assertThat(failures).as("calls that failed though two peers serve them").isEmpty();
    assertThat(runs).as("every call ran").hasSize(calls);
    assertThat(runs.values()).allSatisfy(n -> assertThat(n.get()).as("runs of one call").isOne());
    assertThat(ranOnA.get() + ranOnB.get()).isEqualTo(calls);
    long retries = notFoundRetries();
    assertThat(retries).as("calls that met the misdeployed node").isPositive();
    // Each caller has one call at a time: only the calls under way before the first answer came
    // back can meet the node before it is skipped.
    assertThat(retries).as("calls that met it after it was skipped").isLessThanOrEqualTo(CALLERS);
  }

  @Test
  void callFailsNamingEveryServerWhenEveryNodeLacksTheService() {
    TetherServer[] nodes = {
      misdeployed(Misdeployed.WITHOUT_THE_SERVICE),
      misdeployed(Misdeployed.WITHOUT_THE_SERVICE),
      misdeployed(Misdeployed.WITHOUT_THE_SERVICE)
    };
    Proxy p = group(LoadBalancing.ROUND_ROBIN, nodes);

    for (Idempotency idempotency : Idempotency.values()) {
      assertThatThrownBy(() -> p.invoke("work", bytes("x"), idempotency))
          .isInstanceOfSatisfying(
              ServiceNotFoundException.class,
              e -> {
                assertThat(e.getMessage())
                    .contains("no service \"node\" on any of the 3 nodes tried")
                    .contains(nodes[0].endpoints().get(0).toString())
                    .contains(nodes[1].endpoints().get(0).toString())
                    .contains(nodes[2].endpoints().get(0).toString());
                assertThat(e.attempts())
                    .as("each node once: another round would hear the same")
                    .extracting(Attempt::outcome)
                    .containsExactly(
                        Attempt.Outcome.NOT_FOUND,
                        Attempt.Outcome.NOT_FOUND,
                        Attempt.Outcome.NOT_FOUND);
              });
    }
  }

  @Test
  void callFailsNamingEveryServerWhenEveryNodeLacksTheOperation() {
    TetherServer[] nodes = {
      misdeployed(Misdeployed.WITHOUT_THE_OPERATION), misdeployed(Misdeployed.WITHOUT_THE_OPERATION)
    };
    Proxy p = group(LoadBalancing.LEAST_LOADED, nodes);

    assertThatThrownBy(() -> p.invoke("work", bytes("x"), Idempotency.NOT_IDEMPOTENT))
        .isInstanceOfSatisfying(
            OperationNotFoundException.class,
            e ->
                assertThat(e.getMessage())
                    .contains("has no operation \"work\" on any of the 2 nodes tried")
                    .contains(nodes[0].endpoints().get(0).toString())
                    .contains(nodes[1].endpoints().get(0).toString()));
  }

  @Test
  void pinnedProxysOnlyServerLackingTheServiceFailsTheCallAtOnce() {
    TetherServer only = misdeployed(Misdeployed.WITHOUT_THE_SERVICE);
    Proxy p = group(LoadBalancing.PINNED, only);

    assertThatThrownBy(() -> p.invoke("work", bytes("x"), Idempotency.IDEMPOTENT))
        .isInstanceOfSatisfying(
            ServiceNotFoundException.class,
            e -> {
              assertThat(e.getMessage())
                  .isEqualTo("no service \"node\" on " + only.endpoints().get(0));
              assertThat(e.attempts())
                  .extracting(Attempt::outcome)
                  .containsExactly(Attempt.Outcome.NOT_FOUND);
            });
    awaitEveryRetryEvent();
    assertThat(notFoundRetries()).isZero();
  }
}
