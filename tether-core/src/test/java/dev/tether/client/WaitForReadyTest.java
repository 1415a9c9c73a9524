package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectFailedException;
import dev.tether.InvocationTimeoutException;
import dev.tether.LoadBalancing;
import dev.tether.NoAvailableNodeException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testing.SilentServer;
import dev.tether.testing.StablePorts;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Wait-for-ready is one behaviour over real loopback sockets, for a pinned proxy as for a
 * load-balanced one: the call waits for a ready connection within its deadline and takes the first
 * server that comes up, or ends at the deadline with {@link InvocationTimeoutException}, its
 * timeline and a cause saying nothing was ready, every time. Without it calls fail fast.
 */
class WaitForReadyTest {
  private static final int ROUNDS = 3;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private Tether tether() {
    Tether t = Tether.builder().listener(events::add).build();
    closeables.add(t);
    return t;
  }

  private static String endpoint(int port) {
    return "tcp -h 127.0.0.1 -p " + port;
  }

  private long failedDials() {
    return events.stream().filter(e -> e.kind() == TetherEvent.Kind.CONNECT_FAILED).count();
  }

  private TetherServer serverOn(int port) {
    TetherServer s =
        TetherServer.builder()
            .endpoints(endpoint(port))
            .service("svc", (op, payload, ctx) -> "up".getBytes(StandardCharsets.UTF_8))
            .build()
            .start();
    closeables.add(0, s);
    return s;
  }

  private static void endsAtItsDeadlineWithItsTimeline(
      CompletableFuture<byte[]> call, long startNanos, long timeoutMillis) {
    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            InvocationTimeoutException.class,
            e -> {
              assertThat(e.timeline()).isNotEmpty();
              assertThat(e.getCause())
                  .isInstanceOf(NoAvailableNodeException.class)
                  .hasMessageContaining("was ready before the deadline");
            });
    long tookMillis = (System.nanoTime() - startNanos) / 1_000_000;
    assertThat(tookMillis).as("never before the deadline").isGreaterThanOrEqualTo(timeoutMillis);
  }

  @Test
  void aPinnedCallWaitingForReadyEndsAtItsDeadlineWithItsTimelineEveryTime() throws Exception {
    int dead = ConnectionEstablishmentTest.deadPort();
    Proxy p =
        tether()
            .proxy("svc:" + endpoint(dead))
            .withWaitForReady(true)
            .withInvocationTimeout(Duration.ofMillis(300));
    for (int round = 0; round < ROUNDS; round++) {
      long start = System.nanoTime();
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        calls.add(p.invokeAsync("get", new byte[0]));
      }
      for (CompletableFuture<byte[]> call : calls) {
        endsAtItsDeadlineWithItsTimeline(call, start, 300);
      }
    }
  }

  @Test
  void aBalancedCallWaitingForReadyEndsAtItsDeadlineWithItsTimelineEveryTime() throws Exception {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    Proxy p =
        tether()
            .proxy("svc:" + endpoint(a) + ":" + endpoint(b))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withWaitForReady(true)
            .withInvocationTimeout(Duration.ofMillis(300));
    for (int round = 0; round < ROUNDS; round++) {
      long start = System.nanoTime();
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        calls.add(p.invokeAsync("get", new byte[0]));
      }
      for (CompletableFuture<byte[]> call : calls) {
        endsAtItsDeadlineWithItsTimeline(call, start, 300);
      }
    }
  }

  @Test
  void aPinnedCallWaitingForReadyTakesTheServerThatComesUpWithinItsDeadline() throws Exception {
    int port = StablePorts.unusedPort();
    Proxy p =
        tether()
            .proxy("svc:" + endpoint(port))
            .withWaitForReady(true)
            .withInvocationTimeout(Duration.ofSeconds(20));
    CompletableFuture<byte[]> call = p.invokeAsync("get", new byte[0]);
    await().atMost(Duration.ofSeconds(10)).until(() -> failedDials() >= 3);
    assertThat(call).isNotDone();

    serverOn(port);

    assertThat(new String(call.get(15, TimeUnit.SECONDS), StandardCharsets.UTF_8)).isEqualTo("up");
  }

  @Test
  void aBalancedCallWaitingForReadyTakesTheServerThatComesUpWithinItsDeadline() throws Exception {
    int port = StablePorts.unusedPort();
    int dead = ConnectionEstablishmentTest.deadPort();
    Proxy p =
        tether()
            .proxy("svc:" + endpoint(dead) + ":" + endpoint(port))
            .withLoadBalancing(LoadBalancing.RANDOM)
            .withWaitForReady(true)
            .withInvocationTimeout(Duration.ofSeconds(20));
    CompletableFuture<byte[]> call = p.invokeAsync("get", new byte[0]);
    await().atMost(Duration.ofSeconds(10)).until(() -> failedDials() >= 3);
    assertThat(call).isNotDone();

    serverOn(port);

    assertThat(new String(call.get(15, TimeUnit.SECONDS), StandardCharsets.UTF_8)).isEqualTo("up");
  }

  @Test
  void withoutWaitForReadyPinnedAndBalancedCallsStillFailFast() throws Exception {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    Tether t = tether();
    Proxy pinned = t.proxy("svc:" + endpoint(a)).withInvocationTimeout(Duration.ofSeconds(10));
    Proxy balanced =
        t.proxy("svc:" + endpoint(a) + ":" + endpoint(b))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withInvocationTimeout(Duration.ofSeconds(10));
    long start = System.nanoTime();

    assertThatThrownBy(() -> pinned.invoke("get", new byte[0]))
        .isInstanceOf(ConnectFailedException.class);
    assertThatThrownBy(() -> balanced.invoke("get", new byte[0]))
        .isInstanceOf(NoAvailableNodeException.class);
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000);
  }

  @Test
  void deadlinesOfZeroAndOneMillisecondEndAWaitingCallAtOnce() throws Exception {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    Tether t = tether();
    List<Proxy> proxies = new ArrayList<>();
    for (Duration d : List.of(Duration.ZERO, Duration.ofMillis(1))) {
      proxies.add(t.proxy("svc:" + endpoint(a)).withWaitForReady(true).withInvocationTimeout(d));
      proxies.add(
          t.proxy("svc:" + endpoint(a) + ":" + endpoint(b))
              .withLoadBalancing(LoadBalancing.LEAST_LOADED)
              .withWaitForReady(true)
              .withInvocationTimeout(d));
    }
    for (int round = 0; round < ROUNDS; round++) {
      for (Proxy p : proxies) {
        CompletableFuture<byte[]> call = p.invokeAsync("get", new byte[0]);
        assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(InvocationTimeoutException.class);
      }
    }
  }

  @Test
  void aDeadlineEndsACallWaitingForReadyOnADialWhoseHelloIsNeverAnswered() throws Exception {
    SilentServer silent = new SilentServer();
    closeables.add(silent);
    Tether t = tether();
    List<Proxy> proxies =
        List.of(
            t.proxy("svc:" + endpoint(silent.port())),
            t.proxy("svc:" + endpoint(silent.port())).withLoadBalancing(LoadBalancing.RANDOM));
    for (int round = 0; round < ROUNDS; round++) {
      for (Proxy p : proxies) {
        long start = System.nanoTime();
        CompletableFuture<byte[]> call =
            p.withWaitForReady(true)
                .withInvocationTimeout(Duration.ofMillis(200))
                .invokeAsync("get", new byte[0]);
        endsAtItsDeadlineWithItsTimeline(call, start, 200);
      }
    }
  }
}
