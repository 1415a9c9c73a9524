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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Nodes that are up and answer badly, on real sockets: three nodes, four callers, each balancing. A
 * node whose service throws on every call ("database down") is ejected before it fails one call in
 * twenty-five, its peers taking the rest; a group whose nodes all fail alike (the callers' own bad
 * request) keeps every node.
 */
class SickNodeTest {
  private static final int CALLS = 1_200;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final ExecutorService callers = Executors.newFixedThreadPool(4);

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
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "node",
                (op, payload, ctx) -> {
                  if (down || op.equals("bad")) {
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
    Tether t = Tether.builder().listener(events::add).build();
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
    AtomicInteger left = new AtomicInteger(CALLS);
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
      names = {"ROUND_ROBIN", "LEAST_LOADED", "EPSILON_GREEDY", "RANDOM"})
  void groupWhoseNodesAllFailAlikeKeepsEveryNode(LoadBalancing balancing) throws Exception {
    Proxy p = proxy(node("first", false) + node("second", false) + node("third", false), balancing);

    int failed = failedOf(p, "bad");

    assertThat(failed).isEqualTo(CALLS);
    assertThat(events).noneMatch(e -> e.kind() == TetherEvent.Kind.NODE_EJECTED);
  }
}
