package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Connection;
import dev.tether.ConnectionLostException;
import dev.tether.ConnectionState;
import dev.tether.EndpointSelection;
import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Connection loss as users meet it, made with a {@link FaultProxy} between client and server:
 * resets after the request arrived, frozen peers, transport timeouts, background reconnection.
 * Executions are counted in the service, so "ran once" is checked, not assumed.
 */
class FaultToleranceTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ConcurrentHashMap<String, AtomicLong> executions = new ConcurrentHashMap<>();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private long executed(String name) {
    return executions.computeIfAbsent(name, k -> new AtomicLong()).get();
  }

  private TetherServer server(String name) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "bank",
                (op, payload, ctx) -> {
                  executions.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
                  if (op.equals("slowWithdraw")) {
                    release.await(30, TimeUnit.SECONDS);
                  }
                  return name.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  private FaultProxy faultProxyFor(TetherServer s) {
    FaultProxy fp = FaultProxy.start("127.0.0.1", s.endpoints().get(0).port());
    closeables.add(fp);
    return fp;
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

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static Throwable failureOf(CompletableFuture<?> f) throws InterruptedException {
    try {
      f.get(20, TimeUnit.SECONDS);
      throw new AssertionError("the call succeeded");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the call neither failed nor succeeded", e);
    }
  }

  @Test
  void nonIdempotentCallResetAfterReachingTheServerFailsAsMayHaveExecutedAndRanOnce()
      throws Exception {
    TetherServer a = server("a");
    FaultProxy fp = faultProxyFor(a);
    Proxy p = tether().proxy("bank:" + fp.endpoint());
    CompletableFuture<byte[]> call = p.invokeAsync("slowWithdraw", new byte[0]);
    await().atMost(Duration.ofSeconds(5)).until(() -> executed("a") == 1);
    fp.resetAll();
    Throwable failure = failureOf(call);
    assertThat(failure)
        .isInstanceOfSatisfying(
            ConnectionLostException.class, e -> assertThat(e.mayHaveExecuted()).isTrue());
    release.countDown();
    assertThat(executed("a")).isEqualTo(1);
  }

  @Test
  void idempotentCallResetAfterReachingTheServerSucceedsThroughAnotherEndpoint() throws Exception {
    TetherServer a = server("a");
    TetherServer b = server("b");
    FaultProxy fp = faultProxyFor(a);
    Proxy p =
        tether()
            .proxy("bank:" + fp.endpoint() + ":" + b.endpoints().get(0))
            .withEndpointSelection(EndpointSelection.ORDERED);
    CompletableFuture<byte[]> call =
        p.invokeAsync("slowWithdraw", new byte[0], Idempotency.IDEMPOTENT);
    await().atMost(Duration.ofSeconds(5)).until(() -> executed("a") == 1);
    fp.resetAll();
    release.countDown();
    assertThat(text(call.get(10, TimeUnit.SECONDS))).isEqualTo("b");
  }

  @Test
  void requestCutBeforeItWasWholeNeverRunsAndANonIdempotentCallIsNotRetried() throws Exception {
    TetherServer a = server("a");
    FaultProxy fp = faultProxyFor(a);
    Proxy p = tether().proxy("bank:" + fp.endpoint());
    p.ping();
    fp.cutAfter(10, Direction.CLIENT_TO_SERVER);
    Throwable failure = failureOf(p.invokeAsync("withdraw", new byte[64]));
    // The frame left the client whole, so the client cannot know the server missed its end.
    assertThat(failure)
        .isInstanceOfSatisfying(
            ConnectionLostException.class, e -> assertThat(e.mayHaveExecuted()).isTrue());
    assertThat(executed("a")).isZero();
  }

  @Test
  void frozenPeerIsDetectedByHeartbeatsAndItsCallFails() throws Exception {
    TetherServer a = server("a");
    FaultProxy fp = faultProxyFor(a);
    Tether t =
        tether("tether.heartbeat.readerIdle", "100ms", "tether.heartbeat.idleTimeout", "300ms");
    Proxy p = t.proxy("bank:" + fp.endpoint());
    p.ping();
    Connection c = p.connection();
    fp.freeze();
    long start = System.nanoTime();
    Throwable failure = failureOf(p.invokeAsync("withdraw", new byte[0]));
    long detectedMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(failure)
        .isInstanceOf(ConnectionLostException.class)
        .hasMessageContaining("heartbeat");
    assertThat(t.connection(c).state()).isEqualTo(ConnectionState.CLOSED);
    // idleTimeout plus one readerIdle, with room for a loaded machine.
    assertThat(detectedMillis).isLessThan(300 + 100 + 2_000);
  }

  @Test
  void idleFrozenPeerIsDetectedWithoutAnyCall() {
    TetherServer a = server("a");
    FaultProxy fp = faultProxyFor(a);
    Tether t =
        tether("tether.heartbeat.readerIdle", "100ms", "tether.heartbeat.idleTimeout", "300ms");
    Proxy p = t.proxy("bank:" + fp.endpoint());
    p.ping();
    Connection c = p.connection();
    fp.freeze();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> t.connection(c).state() == ConnectionState.CLOSED);
  }

  @Test
  void transportTimeoutOnAFrozenPeerRetriesAnIdempotentCallElsewhere() throws Exception {
    TetherServer a = server("a");
    TetherServer b = server("b");
    FaultProxy fp = faultProxyFor(a);
    Proxy p =
        tether()
            .proxy("bank:" + fp.endpoint() + " -t 300:" + b.endpoints().get(0) + " -t 300")
            .withEndpointSelection(EndpointSelection.ORDERED);
    p.ping();
    fp.freeze();
    assertThat(text(p.invoke("withdraw", new byte[0], Idempotency.IDEMPOTENT))).isEqualTo("b");
  }

  @Test
  void brokenConnectionIsReestablishedInTheBackgroundPerTheReconnectPolicy() {
    TetherServer a = server("a");
    FaultProxy fp = faultProxyFor(a);
    FakeClock clock = new FakeClock();
    Tether t =
        Tether.builder()
            .ticker(clock)
            .scheduler(clock)
            .property("tether.reconnect.policy", "fixed")
            .property("tether.reconnect.initial", "5s")
            .build();
    closeables.add(t);
    Proxy p = t.proxy("bank:" + fp.endpoint());
    p.ping();
    Connection first = p.connection();
    int acceptedBefore = fp.acceptedConnections();
    fp.stop();
    fp.resetAll();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> t.connection(first).state() == ConnectionState.CLOSED);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> clock.pendingDelays().contains(Duration.ofSeconds(5)));
    fp.restart();
    clock.forward(Duration.ofMillis(4_999));
    // The reconnect is still waiting, due in exactly one more millisecond: it did not fire early.
    assertThat(clock.pendingDelays()).contains(Duration.ofMillis(1));
    assertThat(fp.acceptedConnections()).isEqualTo(acceptedBefore);
    clock.forward(Duration.ofMillis(1));
    assertThat(clock.pendingDelays()).doesNotContain(Duration.ZERO, Duration.ofMillis(1));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> fp.acceptedConnections() == acceptedBefore + 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> fp.openConnections() == 1);
    // The proxy's next call finds the re-established connection instead of opening another.
    p.ping();
    assertThat(fp.acceptedConnections()).isEqualTo(acceptedBefore + 1);
  }

  @Test
  void connectRoundsWaitTheConfiguredRetryIntervalsOnTheInjectedClock() {
    TetherServer a = server("a");
    FaultProxy fp = faultProxyFor(a);
    fp.stop();
    FakeClock clock = new FakeClock();
    Tether t =
        Tether.builder()
            .ticker(clock)
            .scheduler(clock)
            .property("tether.retry.intervals", "0 1000 5000")
            .build();
    closeables.add(t);
    Proxy p = t.proxy("bank:" + fp.endpoint());

    CompletableFuture<byte[]> call = p.invokeAsync("withdraw", new byte[0]);
    // Rounds one and two fail at once (interval 0); the third waits 1 s on the clock.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> clock.pendingDelays().contains(Duration.ofSeconds(1)));
    clock.forward(Duration.ofMillis(999));
    assertThat(call).isNotDone();
    clock.forward(Duration.ofMillis(1));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> clock.pendingDelays().contains(Duration.ofSeconds(5)));
    fp.restart();
    clock.forward(Duration.ofMillis(4_999));
    assertThat(call).isNotDone();
    clock.forward(Duration.ofMillis(1));

    assertThat(new String(call.join(), StandardCharsets.UTF_8)).isEqualTo("a");
    assertThat(executed("a")).isEqualTo(1);
  }
}
