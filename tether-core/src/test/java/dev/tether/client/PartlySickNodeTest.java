package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testing.StablePorts;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Nodes sick in part, on real sockets: a group of two still ejects its node that fails every call
 * (at most half of two is one), and a node that answered it lacks a service takes that service's
 * calls again once it is redeployed with it, on its new connection, well before the 30 s skip ends.
 */
class PartlySickNodeTest {
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

  private TetherServer start(TetherServer.Builder b, int port) {
    TetherServer s = b.endpoints("tcp -h 127.0.0.1 -p " + port).build().start();
    closeables.add(s);
    return s;
  }

  /** A node serving "a" and "b", failing "a" when {@code sickA}, "b" when {@code sickB}. */
  private TetherServer node(String name, boolean sickA, boolean sickB, AtomicInteger ran) {
    TetherServer.Builder b = TetherServer.builder();
    for (String svc : List.of("a", "b")) {
      boolean sick = svc.equals("a") ? sickA : sickB;
      b.service(
          svc,
          (op, payload, ctx) -> {
            ran.incrementAndGet();
            if (sick) {
              throw new IllegalStateException(name + ": " + svc + " down");
            }
            return name.getBytes(StandardCharsets.UTF_8);
          });
    }
    return start(b, 0);
  }

  private Tether runtime() {
    Tether t = Tether.builder().listener(events::add).build();
    closeables.add(t);
    return t;
  }

  private static String endpoints(TetherServer... nodes) {
    StringBuilder sb = new StringBuilder();
    for (TetherServer n : nodes) {
      sb.append(':').append(n.endpoints().get(0));
    }
    return sb.toString();
  }

  /** {@code calls} idempotent calls from four callers, each picking its proxy; returns failures. */
  private int[] run(int calls, Proxy... proxies) throws Exception {
    AtomicInteger left = new AtomicInteger(calls);
    int[] failed = new int[proxies.length];
    AtomicInteger[] f = new AtomicInteger[proxies.length];
    for (int i = 0; i < f.length; i++) {
      f[i] = new AtomicInteger();
    }
    List<CompletableFuture<Void>> done = new ArrayList<>();
    for (int c = 0; c < 4; c++) {
      done.add(
          CompletableFuture.runAsync(
              () -> {
                int n;
                while ((n = left.getAndDecrement()) > 0) {
                  int which = n % proxies.length;
                  try {
                    proxies[which].invoke("op", new byte[0], Idempotency.IDEMPOTENT);
                  } catch (RuntimeException e) {
                    f[which].incrementAndGet();
                  }
                }
              },
              callers));
    }
    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    for (int i = 0; i < f.length; i++) {
      failed[i] = f[i].get();
    }
    return failed;
  }

  @ParameterizedTest
  @EnumSource(
      value = LoadBalancing.class,
      names = {"ROUND_ROBIN", "LEAST_LOADED"})
  void groupOfTwoEjectsItsNodeThatFailsEveryCallBeforeItFailsOneCallInTwentyFive(
      LoadBalancing balancing) throws Exception {
    AtomicInteger ran = new AtomicInteger();
    String group = endpoints(node("sick", true, true, ran), node("well", false, false, ran));
    Proxy p = runtime().proxy("a" + group).withLoadBalancing(balancing);

    int failed = run(1_200, p)[0];

    System.out.printf("%s, group of two: %d of 1200 failed%n", balancing, failed);
    assertThat(failed).isLessThan(1_200 / 25);
    assertThat(events).anyMatch(e -> e.kind() == TetherEvent.Kind.NODE_EJECTED);
  }

  @Test
  void misdeployedNodeRedeployedWithTheServiceTakesCallsOnItsNewConnection() throws Exception {
    AtomicInteger ranWell = new AtomicInteger();
    AtomicInteger ranRedeployed = new AtomicInteger();
    TetherServer well = node("well", false, false, ranWell);
    TetherServer wrong =
        StablePorts.listenOnOne(
            port -> start(TetherServer.builder().service("other", (op, p, c) -> p), port));
    int port = wrong.endpoints().get(0).port();
    Proxy p =
        runtime()
            .proxy("a" + endpoints(well, wrong))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withInvocationTimeout(Duration.ofSeconds(5));
    assertThat(run(40, p)[0]).isZero();
    assertThat(events)
        .anyMatch(e -> e.kind() == TetherEvent.Kind.RETRY && e.detail().contains("NOT_FOUND"));

    wrong.close();
    start(
        TetherServer.builder()
            .service(
                "a",
                (op, payload, ctx) -> {
                  ranRedeployed.incrementAndGet();
                  return payload;
                }),
        port);
    // Calls go on; the redeployed node gets its share within a bounded number of them.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              run(20, p);
              return ranRedeployed.get() > 0;
            });
  }
}
