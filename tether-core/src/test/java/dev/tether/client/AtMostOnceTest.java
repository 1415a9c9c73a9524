package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Attempt;
import dev.tether.Connection;
import dev.tether.ConnectionLostException;
import dev.tether.ConnectionState;
import dev.tether.EndpointSelection;
import dev.tether.Idempotency;
import dev.tether.OperationNotFoundException;
import dev.tether.Proxy;
import dev.tether.RemoteException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The at-most-once rule against real servers: a call is retried only when the server cannot have
 * run it or it is idempotent, and a non-idempotent call never runs twice. Executions are counted in
 * the service.
 */
class AtMostOnceTest {
  private final List<TetherServer> servers = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ConcurrentHashMap<String, AtomicLong> executions = new ConcurrentHashMap<>();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (AutoCloseable c : closeables) {
      c.close();
    }
    for (TetherServer s : servers) {
      s.close();
    }
  }

  private long executed(String server) {
    return executions.computeIfAbsent(server, k -> new AtomicLong()).get();
  }

  private long executedEverywhere() {
    return executions.values().stream().mapToLong(AtomicLong::get).sum();
  }

  private TetherServer server(String name, String endpoints, TetherServer.Builder builder) {
    TetherServer s =
        builder
            .endpoints(endpoints)
            .service(
                "bank",
                (op, payload, ctx) -> {
                  executions.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
                  return switch (op) {
                    case "withdraw" -> name.getBytes(StandardCharsets.UTF_8);
                    case "slowWithdraw" -> {
                      release.await(30, TimeUnit.SECONDS);
                      yield name.getBytes(StandardCharsets.UTF_8);
                    }
                    case "fail" -> throw new IllegalStateException("insufficient funds");
                    default -> throw new IllegalArgumentException(op);
                  };
                })
            .build()
            .start();
    servers.add(s);
    return s;
  }

  private TetherServer server(String name) {
    return server(name, "tcp -h 127.0.0.1 -p 0", TetherServer.builder());
  }

  private Tether tether(String... properties) {
    Tether.Builder b = Tether.builder();
    for (int i = 0; i < properties.length; i += 2) {
      b.property(properties[i], properties[i + 1]);
    }
    Tether t = b.build();
    closeables.add(t);
    return t;
  }

  private static String endpoint(TetherServer s) {
    return s.endpoints().get(0).toString();
  }

  private static String call(Proxy p, String op) {
    return new String(p.invoke(op, new byte[0]), StandardCharsets.UTF_8);
  }

  @Test
  void refusedRequestIsRetriedElsewhereEvenWhenNotIdempotent() {
    TetherServer full =
        server(
            "full",
            "tcp -h 127.0.0.1 -p 0",
            TetherServer.builder()
                .executor(
                    task -> {
                      throw new RejectedExecutionException("no thread free");
                    }));
    TetherServer spare = server("spare");
    Proxy p =
        tether()
            .proxy("bank:" + endpoint(full) + ":" + endpoint(spare))
            .withEndpointSelection(EndpointSelection.ORDERED);
    assertThat(call(p, "withdraw")).isEqualTo("spare");
    assertThat(executed("spare")).isEqualTo(1);
    assertThat(executed("full")).isZero();
  }

  @Test
  void requestAboveGoAwaysLastAcceptedIdIsRetriedElsewhereEvenWhenNotIdempotent() throws Exception {
    TetherServer spare = server("spare");
    // Completes the handshake, then answers the first request with GOAWAY saying it accepted none.
    try (ScriptedServer draining =
        new ScriptedServer(r -> new GoAway(GoAwayReason.SHUTDOWN, 0, "draining"))) {
      Proxy p =
          tether()
              .proxy("bank:tcp -h 127.0.0.1 -p " + draining.port() + ":" + endpoint(spare))
              .withEndpointSelection(EndpointSelection.ORDERED);
      assertThat(call(p, "withdraw")).isEqualTo("spare");
      assertThat(executed("spare")).isEqualTo(1);
      assertThat(draining.requestsSeen()).isEqualTo(1);
    }
  }

  @Test
  void connectionLostAfterSendFailsANonIdempotentCallThatMayHaveRun() throws Exception {
    TetherServer victim = server("victim");
    Proxy p = tether().proxy(victim.proxyString("bank"));
    CompletableFuture<byte[]> call = p.invokeAsync("slowWithdraw", new byte[0]);
    await().atMost(Duration.ofSeconds(5)).until(() -> executed("victim") == 1);
    victim.close();
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(ConnectionLostException.class)
        .cause()
        .satisfies(
            e -> {
              ConnectionLostException lost = (ConnectionLostException) e;
              assertThat(lost.mayHaveExecuted()).isTrue();
              assertThat(lost.attempts())
                  .extracting(Attempt::outcome)
                  .containsExactly(Attempt.Outcome.LOST_AFTER_SEND);
            });
    assertThat(executed("victim")).isEqualTo(1);
  }

  @Test
  void connectionLostAfterSendRetriesAnIdempotentCallElsewhere() throws Exception {
    TetherServer victim = server("victim");
    TetherServer spare = server("spare");
    Proxy p =
        tether()
            .proxy("bank:" + endpoint(victim) + ":" + endpoint(spare))
            .withEndpointSelection(EndpointSelection.ORDERED);
    CompletableFuture<byte[]> call =
        p.invokeAsync("slowWithdraw", new byte[0], Idempotency.IDEMPOTENT);
    await().atMost(Duration.ofSeconds(5)).until(() -> executed("victim") == 1);
    victim.close();
    release.countDown();
    assertThat(new String(call.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .isEqualTo("spare");
  }

  @Test
  void staleCachedConnectionToARestartedServerIsReplacedTransparently() {
    TetherServer first = server("first");
    int port = first.endpoints().get(0).port();
    Tether t = tether();
    Proxy p = t.proxy(first.proxyString("bank"));
    assertThat(call(p, "withdraw")).isEqualTo("first");
    Connection stale = p.connection();
    first.close();
    servers.remove(first);
    server("restarted", "tcp -h 127.0.0.1 -p " + port, TetherServer.builder());
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> t.connection(stale).state() == ConnectionState.CLOSED);
    // A reconnect that met the port before the restart backs off; calls fail fast, unrun, until its
    // next attempt.
    await()
        .atMost(Duration.ofSeconds(5))
        .ignoreExceptions()
        .until(() -> call(p, "withdraw").equals("restarted"));
    assertThat(executed("restarted")).isEqualTo(1);
    assertThat(executed("first")).isEqualTo(1);
  }

  @Test
  void remoteErrorIsNeverRetried() {
    TetherServer a = server("a");
    TetherServer b = server("b");
    Proxy p = tether().proxy("bank:" + endpoint(a) + ":" + endpoint(b));
    assertThatThrownBy(() -> p.invoke("fail", new byte[0], Idempotency.IDEMPOTENT))
        .isInstanceOf(RemoteException.class);
    assertThat(executedEverywhere()).isEqualTo(1);
  }

  @Test
  void serviceAndOperationNotFoundAreNeverRetriedOnAnotherEndpoint() {
    AtomicInteger executedOnSecond = new AtomicInteger();
    TetherServer first =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("typed", Teller.class, () -> "first")
            .build()
            .start();
    TetherServer second =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("typed", Teller.class, () -> "second")
            .service(
                "nobody",
                (op, payload, ctx) -> {
                  executedOnSecond.incrementAndGet();
                  return payload;
                })
            .build()
            .start();
    servers.add(first);
    servers.add(second);
    Proxy p =
        tether()
            .proxy("typed:" + endpoint(first) + ":" + endpoint(second))
            .withEndpointSelection(EndpointSelection.ORDERED);

    assertThatThrownBy(() -> p.invoke("unknown", new byte[0], Idempotency.IDEMPOTENT))
        .isInstanceOfSatisfying(
            OperationNotFoundException.class, AtMostOnceTest::answeredNotFoundOnce);
    assertThatThrownBy(
            () -> p.withIdentity("nobody").invoke("withdraw", new byte[0], Idempotency.IDEMPOTENT))
        .isInstanceOfSatisfying(
            dev.tether.ServiceNotFoundException.class, AtMostOnceTest::answeredNotFoundOnce);
    assertThat(executedOnSecond).hasValue(0);
    assertThat(((java.net.InetSocketAddress) p.connection().remoteAddress()).getPort())
        .isEqualTo(first.endpoints().get(0).port());
  }

  /** The call heard one answer, from the first server, and went nowhere else. */
  private static void answeredNotFoundOnce(dev.tether.TetherException e) {
    assertThat(e.attempts())
        .extracting(Attempt::outcome)
        .containsExactly(Attempt.Outcome.NOT_FOUND);
  }

  /** A typed service with one operation, so any other name is OPERATION_NOT_FOUND. */
  interface Teller {
    String balance();
  }

  @Test
  void spentRetryBudgetFailsWithTheOriginalCause() {
    TetherServer full =
        server(
            "full",
            "tcp -h 127.0.0.1 -p 0",
            TetherServer.builder()
                .executor(
                    task -> {
                      throw new RejectedExecutionException("no thread free");
                    }));
    Proxy p =
        tether("tether.retry.budget.ratio", "0", "tether.retry.budget.floorPerSecond", "0")
            .proxy("bank:" + endpoint(full));
    assertThatThrownBy(() -> call(p, "withdraw"))
        .isInstanceOfSatisfying(
            dev.tether.RequestRefusedException.class,
            e ->
                assertThat(e.attempts())
                    .extracting(Attempt::outcome)
                    .containsExactly(Attempt.Outcome.REFUSED, Attempt.Outcome.BUDGET_EXHAUSTED));
    assertThat(executed("full")).isZero();
  }

  @Test
  void gracefulRollingRestartUnderLoadFailsNoCallAndRunsNoneTwice() throws Exception {
    List<TetherServer> nodes = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      TetherServer s = server("node" + i);
      nodes.add(s);
      ports.add(s.endpoints().get(0).port());
    }
    String proxyString =
        "bank:"
            + endpoint(nodes.get(0))
            + ":"
            + endpoint(nodes.get(1))
            + ":"
            + endpoint(nodes.get(2));
    // The node's way back is not what this test checks: its redials back off at most 1 s, so a
    // node whose port was closed while the eight callers kept asking for it is dialled again
    // well within the wait below. The wait ran out once in a loaded build, not reproduced since;
    // a backoff grown toward its 30 s default is the suspected cause.
    Proxy p = tether("tether.reconnect.max", "1s").proxy(proxyString).withConnectionCached(false);
    LoadResult load =
        LoadResult.run(
            p,
            8,
            Duration.ofSeconds(20),
            4_000,
            () -> {
              for (int i = 0; i < 3; i++) {
                TetherServer old = nodes.get(i);
                old.shutdownGracefully(Duration.ofSeconds(10));
                servers.remove(old);
                long servedBefore = executed("node" + i);
                nodes.set(
                    i,
                    server(
                        "node" + i, "tcp -h 127.0.0.1 -p " + ports.get(i), TetherServer.builder()));
                // As an operator would: the next node restarts once this one serves again. A dial
                // that met
                // the closed port backs off, so restarting all three within one delay would leave
                // none.
                String name = "node" + i;
                await().atMost(Duration.ofSeconds(10)).until(() -> executed(name) > servedBefore);
              }
            });
    assertThat(load.failures()).as("failed calls: %s", load.firstFailure()).isZero();
    assertThat(executedEverywhere()).isEqualTo(load.successes());
    assertThat(load.successes()).isGreaterThan(100);
  }

  @Test
  void abruptKillsUnderLoadNeverFailAnIdempotentCallAndNeverRunANonIdempotentOneTwice()
      throws Exception {
    List<TetherServer> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nodes.add(server("node" + i));
    }
    String proxyString =
        "bank:"
            + endpoint(nodes.get(0))
            + ":"
            + endpoint(nodes.get(1))
            + ":"
            + endpoint(nodes.get(2));
    Tether t = tether();
    Proxy p = t.proxy(proxyString).withConnectionCached(false);
    AtomicInteger idempotentFailures = new AtomicInteger();
    LoadResult load =
        LoadResult.run(
            p,
            8,
            Duration.ofSeconds(20),
            4_000,
            () -> {
              nodes.get(0).close();
              for (int i = 0; i < 50; i++) {
                try {
                  p.invoke("withdraw", new byte[0], Idempotency.IDEMPOTENT);
                } catch (RuntimeException e) {
                  idempotentFailures.incrementAndGet();
                }
              }
              nodes.get(1).close();
            });
    assertThat(idempotentFailures).hasValue(0);
    assertThat(load.failuresOtherThanMayHaveExecuted())
        .as("first failure: %s", load.firstFailure())
        .isZero();
    long idempotentRuns = 50;
    assertThat(executedEverywhere() - idempotentRuns)
        .isLessThanOrEqualTo(load.successes() + load.mayHaveExecutedFailures());
  }
}
