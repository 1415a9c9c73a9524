package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.AttemptTimeoutException;
import dev.tether.EndpointSelection;
import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attempt timeouts and hedged calls (the tail-latency rules, docs/guide.md) against real servers
 * behind fault proxies, with the timers on a fake clock; executions are counted per server.
 */
class TailLatencyTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ConcurrentHashMap<String, AtomicInteger> executions = new ConcurrentHashMap<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final FakeClock clock = new FakeClock();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private int executed(String name) {
    return executions.computeIfAbsent(name, k -> new AtomicInteger()).get();
  }

  private FaultProxy server(String name) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  executions.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
                  return name.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    FaultProxy fp = FaultProxy.start("127.0.0.1", s.endpoints().get(0).port());
    closeables.add(fp);
    return fp;
  }

  private Tether tether(String... properties) {
    Tether.Builder b = Tether.builder().ticker(clock).scheduler(clock).listener(events::add);
    for (int i = 0; i < properties.length; i += 2) {
      b.property(properties[i], properties[i + 1]);
    }
    Tether t = b.build();
    closeables.add(t);
    return t;
  }

  /** Events reach listeners on their own thread, a moment after what they report. */
  private void awaitEvent(java.util.function.Predicate<TetherEvent> matches) {
    await().atMost(WAIT).until(() -> events.stream().anyMatch(matches));
  }

  private static String text(CompletableFuture<byte[]> f) {
    return new String(f.join(), StandardCharsets.UTF_8);
  }

  /** Both endpoints connected first, so the timed part of each test is the call alone. */
  private Proxy connectedTo(Tether t, FaultProxy first, FaultProxy second) {
    t.proxy("svc:" + first.endpoint()).ping();
    t.proxy("svc:" + second.endpoint()).ping();
    return t.proxy("svc:" + first.endpoint() + ":" + second.endpoint())
        .withEndpointSelection(EndpointSelection.ORDERED);
  }

  @Test
  void stuckFirstEndpointCostsAnIdempotentCallOneAttemptTimeoutNotTheInvocationTimeout() {
    FaultProxy stuck = server("stuck");
    FaultProxy good = server("good");
    Proxy p =
        connectedTo(tether(), stuck, good)
            .withInvocationTimeout(Duration.ofSeconds(30))
            .withAttemptTimeout(Duration.ofMillis(200));
    stuck.freeze();

    CompletableFuture<byte[]> call = p.invokeAsync("read", new byte[0], Idempotency.IDEMPOTENT);
    await().atMost(WAIT).until(() -> clock.pendingDelays().contains(Duration.ofMillis(200)));
    clock.forward(Duration.ofMillis(199));
    assertThat(call).isNotDone();
    clock.forward(Duration.ofMillis(1));

    assertThat(text(call)).isEqualTo("good");
    assertThat(executed("good")).isEqualTo(1);
    awaitEvent(e -> e.detail().contains("after ATTEMPT_TIMEOUT"));
  }

  @Test
  void nonIdempotentCallWhoseAttemptTimesOutFailsAsMayHaveRunAndIsNotSentElsewhere() {
    FaultProxy stuck = server("stuck");
    FaultProxy good = server("good");
    Proxy p = connectedTo(tether(), stuck, good).withAttemptTimeout(Duration.ofMillis(200));
    stuck.freeze();

    CompletableFuture<byte[]> call = p.invokeAsync("withdraw", new byte[0]);
    await().atMost(WAIT).until(() -> clock.pendingDelays().contains(Duration.ofMillis(200)));
    clock.forward(Duration.ofMillis(200));

    assertThatThrownBy(call::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            AttemptTimeoutException.class,
            e -> {
              assertThat(e.mayHaveExecuted()).isTrue();
              assertThat(e.getMessage()).contains("may have run");
            });
    assertThat(executed("good")).isZero();
  }

  @Test
  void hedgeAfterTheDelayAnswersFromTheFastEndpointAndCancelsTheSlowAttempt() {
    FaultProxy slow = server("slow");
    FaultProxy fast = server("fast");
    Proxy p = connectedTo(tether(), slow, fast).withHedging(Duration.ofMillis(10), 2);
    slow.freeze();

    CompletableFuture<byte[]> call = p.invokeAsync("read", new byte[0], Idempotency.IDEMPOTENT);
    await().atMost(WAIT).until(() -> clock.pendingDelays().contains(Duration.ofMillis(10)));
    assertThat(executed("fast")).isZero();
    clock.forward(Duration.ofMillis(10));

    assertThat(text(call)).isEqualTo("fast");
    assertThat(executed("fast")).isEqualTo(1);
    awaitEvent(e -> e.detail().startsWith("hedging read of svc"));
  }

  @Test
  void nonIdempotentCallIsNeverHedged() {
    FaultProxy slow = server("slow");
    FaultProxy fast = server("fast");
    Proxy p = connectedTo(tether(), slow, fast).withHedging(Duration.ofMillis(10), 2);
    slow.latency(Duration.ofMillis(300));

    CompletableFuture<byte[]> call = p.invokeAsync("withdraw", new byte[0]);
    clock.forward(Duration.ofSeconds(1));

    assertThat(text(call)).isEqualTo("slow");
    assertThat(executed("fast")).isZero();
    assertThat(executed("slow")).isEqualTo(1);
  }

  @Test
  void spentRetryBudgetStopsHedgesSoASlowClusterGetsNoExtraLoad() {
    FaultProxy slow = server("slow");
    FaultProxy fast = server("fast");
    Proxy p =
        connectedTo(
                tether("tether.retry.budget.ratio", "0", "tether.retry.budget.floorPerSecond", "0"),
                slow,
                fast)
            .withHedging(Duration.ofMillis(10), 2);
    slow.latency(Duration.ofMillis(300));

    CompletableFuture<byte[]> call = p.invokeAsync("read", new byte[0], Idempotency.IDEMPOTENT);
    await().atMost(WAIT).until(() -> clock.pendingDelays().contains(Duration.ofMillis(10)));
    clock.forward(Duration.ofMillis(10));

    assertThat(text(call)).isEqualTo("slow");
    assertThat(executed("fast")).isZero();
    awaitEvent(e -> e.kind() == TetherEvent.Kind.RETRY_BUDGET_EXHAUSTED);
  }
}
