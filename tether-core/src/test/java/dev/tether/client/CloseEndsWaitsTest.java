package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Connection;
import dev.tether.ConnectionState;
import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherException;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.observe.TetherEvent;
import dev.tether.testing.SilentServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Tether.close()} keeps its word over real loopback sockets: every call still waiting (for a
 * ready node or connection, for a dial, on a connection) ends within {@code tether.close.grace}
 * with an exception that says the runtime closed, and no thread stays blocked in {@code invoke()}.
 */
class CloseEndsWaitsTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  /** Calls the holding servers are running. */
  private final AtomicInteger held = new AtomicInteger();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private Tether tether(String grace) {
    Tether t = Tether.builder().property("tether.close.grace", grace).listener(events::add).build();
    closeables.add(t);
    return t;
  }

  private static String endpoint(int port) {
    return "tcp -h 127.0.0.1 -p " + port;
  }

  private long failedDials() {
    return events.stream().filter(e -> e.kind() == TetherEvent.Kind.CONNECT_FAILED).count();
  }

  @Test
  void closeEndsWaitForReadyCallsWithinTheGrace() throws Exception {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    Tether t = tether("2s");
    Proxy pinned = t.proxy("svc:" + endpoint(a)).withWaitForReady(true);
    Proxy group =
        t.proxy("svc:" + endpoint(a) + ":" + endpoint(b))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withWaitForReady(true);
    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    calls.add(pinned.invokeAsync("get", new byte[0]));
    calls.add(pinned.withInvocationTimeout(Duration.ofSeconds(5)).invokeAsync("get", new byte[0]));
    calls.add(group.invokeAsync("get", new byte[0]));
    calls.add(group.withInvocationTimeout(Duration.ofSeconds(5)).invokeAsync("get", new byte[0]));
    CompletableFuture<Throwable> blocked = new CompletableFuture<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                group.invoke("get", new byte[0]);
                blocked.complete(null);
              } catch (Throwable e) {
                blocked.complete(e);
              }
            },
            "blocked-in-invoke");
    caller.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> failedDials() >= 2);
    assertThat(calls).noneMatch(CompletableFuture::isDone);
    assertThat(blocked).isNotDone();

    long start = System.nanoTime();
    t.close();

    for (CompletableFuture<byte[]> call : calls) {
      assertThatThrownBy(() -> call.get(4, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(TetherException.class)
          .hasMessageContaining("closed");
    }
    assertThat(blocked.get(4, TimeUnit.SECONDS))
        .isInstanceOf(TetherException.class)
        .hasMessageContaining("closed");
    caller.join(1000);
    assertThat(caller.isAlive()).isFalse();
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2_000 + 1_000);
  }

  /** Accepts connections and never says a word: HELLO is never answered. */
  private int silentServer() throws IOException {
    SilentServer s = new SilentServer();
    closeables.add(s);
    return s.port();
  }

  /** A server whose service holds every call until the test ends. */
  private TetherServer holdingServer() {
    CountDownLatch release = new CountDownLatch(1);
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  held.incrementAndGet();
                  release.await(30, TimeUnit.SECONDS);
                  return new byte[0];
                })
            .build()
            .start();
    closeables.add(0, s);
    closeables.add(1, release::countDown);
    return s;
  }

  private static void endsWithTheClose(CompletableFuture<byte[]> call) {
    assertThatThrownBy(() -> call.get(4, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(TetherException.class);
  }

  @Test
  void closeEndsCallsWaitingForADialWhoseHelloIsNeverAnswered() throws Exception {
    int port = silentServer();
    Tether t = tether("300ms");
    Proxy pinned = t.proxy("svc:" + endpoint(port)).withWaitForReady(true);
    Proxy group = t.proxy("svc:" + endpoint(port)).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    List<CompletableFuture<byte[]>> calls =
        List.of(pinned.invokeAsync("get", new byte[0]), group.invokeAsync("get", new byte[0]));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.CONNECTING));
    assertThat(calls).noneMatch(CompletableFuture::isDone);

    long start = System.nanoTime();
    t.close();

    calls.forEach(CloseEndsWaitsTest::endsWithTheClose);
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(300 + 2_000);
  }

  @Test
  void closeEndsHedgedCallsStillAwaitingTheirAnswersAtTheGrace() throws Exception {
    TetherServer a = holdingServer();
    TetherServer b = holdingServer();
    Tether t = tether("300ms");
    Proxy hedged =
        t.proxy("svc:" + a.endpoints().get(0) + ":" + b.endpoints().get(0))
            .withHedging(Duration.ofMillis(20), 2);
    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      calls.add(hedged.invokeAsync("get", new byte[0], Idempotency.IDEMPOTENT));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> held.get() >= 4);

    long start = System.nanoTime();
    t.close();

    calls.forEach(CloseEndsWaitsTest::endsWithTheClose);
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(300 + 2_000);
  }

  @Test
  void closeEndsACallLeftOnAConnectionItsKeyRotatedAwayWithinTheGrace() throws Exception {
    TetherServer a = holdingServer();
    String self = a.endpoints().get(0).toString();
    String other = endpoint(ConnectionEstablishmentTest.deadPort());
    a.setTopology(Topology.of(self, List.of(other)).withEpoch(1));
    Tether t = tether("300ms");
    Proxy p = t.proxy("svc:" + self);
    Connection first = p.connection();
    CompletableFuture<byte[]> call = p.invokeAsync("get", new byte[0]);
    await().atMost(Duration.ofSeconds(10)).until(() -> held.get() == 1);

    // A, no longer primary, moves its clients on as from an aged connection: the key's replacement
    // takes new calls, and the runtime still holds the first connection, draining the call on it.
    a.setTopology(Topology.of(other, List.of(self)).withEpoch(2));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> t.connection(first).state() != ConnectionState.ACTIVE);
    assertThat(t.connection(first).state()).isEqualTo(ConnectionState.DRAINING);
    assertThat(t.connection(first).inFlight()).isEqualTo(1);

    long start = System.nanoTime();
    CompletableFuture.runAsync(t::close).get(3, TimeUnit.SECONDS);

    endsWithTheClose(call);
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(300 + 2_000);
  }

  @Test
  void closingTwiceReturnsBothTimesAndACallAfterwardsFailsAtOnce() throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    Tether t = tether("300ms");
    Proxy p = t.proxy("svc:" + endpoint(port)).withWaitForReady(true);
    CompletableFuture<byte[]> waiting = p.invokeAsync("get", new byte[0]);

    t.close();
    t.close();

    endsWithTheClose(waiting);
    assertThatThrownBy(() -> p.invoke("get", new byte[0]))
        .isInstanceOf(TetherException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void closeFromAListenerCallbackReturnsAndEndsTheWaitingCalls() throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    CompletableFuture<Void> closedByListener = new CompletableFuture<>();
    Tether[] self = new Tether[1];
    Tether t =
        Tether.builder()
            .property("tether.close.grace", "300ms")
            .listener(
                e -> {
                  if (e.kind() == TetherEvent.Kind.CONNECT_FAILED && !closedByListener.isDone()) {
                    self[0].close();
                    closedByListener.complete(null);
                  }
                })
            .build();
    self[0] = t;
    closeables.add(t);
    CompletableFuture<byte[]> waiting =
        t.proxy("svc:" + endpoint(port)).withWaitForReady(true).invokeAsync("get", new byte[0]);

    closedByListener.get(5, TimeUnit.SECONDS);
    endsWithTheClose(waiting);
  }

  @Test
  void callsStartedWhileTheRuntimeClosesAllEnd() throws Exception {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    for (int run = 0; run < 3; run++) {
      Tether t = tether("200ms");
      List<Proxy> proxies =
          List.of(
              t.proxy("svc:" + endpoint(a)).withWaitForReady(true),
              t.proxy("svc:" + endpoint(a) + ":" + endpoint(b))
                  .withLoadBalancing(LoadBalancing.LEAST_LOADED)
                  .withWaitForReady(true),
              t.proxy("svc:" + endpoint(b)).withInvocationTimeout(Duration.ofSeconds(5)));
      List<CompletableFuture<byte[]>> calls = new CopyOnWriteArrayList<>();
      CompletableFuture<Void> caller =
          CompletableFuture.runAsync(
              () -> {
                for (int i = 0; i < 200; i++) {
                  for (Proxy p : proxies) {
                    try {
                      calls.add(p.invokeAsync("get", new byte[0]));
                    } catch (TetherException refused) {
                      return; // closed: refused at once
                    }
                  }
                }
              });
      await().atMost(Duration.ofSeconds(10)).until(() -> calls.size() > 30);

      t.close();
      caller.get(5, TimeUnit.SECONDS);

      calls.forEach(CloseEndsWaitsTest::endsWithTheClose);
    }
  }
}
