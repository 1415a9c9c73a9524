package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectionLostException;
import dev.tether.EndpointSelection;
import dev.tether.Idempotency;
import dev.tether.InvocationTimeoutException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherException;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.testing.ManualClock;
import dev.tether.testing.SilentServer;
import dev.tether.testing.StablePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attacks on a call's rounds over real loopback sockets, as a hostile peer, a sick node or a crowd
 * would make them: a non-idempotent call never runs twice, a crowd does not out-dial the backoff,
 * no call outlives its invocation timeout in any state, and no exception is shared between calls.
 */
class CallRoundsAttackTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger executions = new AtomicInteger();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private Tether tether(Tether.Builder b) {
    Tether t = b.listener(events::add).build();
    closeables.add(t);
    return t;
  }

  private static String endpoint(int port) {
    return "tcp -h 127.0.0.1 -p " + port;
  }

  private long count(TetherEvent.Kind kind, int port) {
    Pattern onPort = Pattern.compile("-p " + port + "\\b");
    return events.stream()
        .filter(e -> e.kind() == kind && e.endpoint() != null)
        .filter(e -> onPort.matcher(e.endpoint()).find())
        .count();
  }

  /** A server whose service counts each execution; "slow" waits for the test's release. */
  private TetherServer countingServer(String endpoints) {
    TetherServer s =
        TetherServer.builder()
            .endpoints(endpoints)
            .service(
                "bank",
                (op, payload, ctx) -> {
                  executions.incrementAndGet();
                  if (op.equals("slow")) {
                    release.await(30, TimeUnit.SECONDS);
                  }
                  return "ran".getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(0, s);
    return s;
  }

  /** Accepts connections and never says a word: HELLO is never answered. */
  private int silentServer() throws IOException {
    SilentServer s = new SilentServer();
    closeables.add(s);
    return s.port();
  }

  // ---- a crowd against a dead server ----

  @Test
  void eightCallersForTwoSecondsDialADeadServerNoMoreOftenThanTheBackoffAllowsPlusOneWalk()
      throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    Proxy p = tether(Tether.builder()).proxy("svc:" + endpoint(port));

    long start = System.nanoTime();
    long calls = DeadServerCrowd.hammer(p, 8, Duration.ofSeconds(2));
    long elapsedNanos = System.nanoTime() - start;

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                count(TetherEvent.Kind.CONNECT_FAILED, port)
                    == count(TetherEvent.Kind.CONNECTING, port));
    assertThat(count(TetherEvent.Kind.CONNECTING, port))
        .as("dials in %d ms by %d calls", elapsedNanos / 1_000_000, calls)
        .isLessThanOrEqualTo(DeadServerCrowd.dialsTheBackoffAllowsWithin(elapsedNanos) + 1);
  }

  @Test
  void eightCallersForTwoSecondsDialTwoDeadEndpointsNoMoreOftenThanTheBackoffAllowsPlusOneWalk()
      throws Exception {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    Proxy p =
        tether(Tether.builder())
            .proxy("svc:" + endpoint(a) + ":" + endpoint(b))
            .withEndpointSelection(EndpointSelection.ORDERED);

    long start = System.nanoTime();
    long calls = DeadServerCrowd.hammer(p, 8, Duration.ofSeconds(2));
    long elapsedNanos = System.nanoTime() - start;

    for (int port : new int[] {a, b}) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  count(TetherEvent.Kind.CONNECT_FAILED, port)
                      == count(TetherEvent.Kind.CONNECTING, port));
      assertThat(count(TetherEvent.Kind.CONNECTING, port))
          .as("dials of %d in %d ms by %d calls", port, elapsedNanos / 1_000_000, calls)
          .isLessThanOrEqualTo(DeadServerCrowd.dialsTheBackoffAllowsWithin(elapsedNanos) + 1);
    }
  }

  /**
   * The same at a proxy that does not reuse a pooled connection: every arriving call walks, so each
   * one that starts while a call's redial is in flight joins it and may redial in turn.
   */
  @Test
  void uncachedCallsArrivingThroughoutAtASilentServerDialNoMoreThanTheBackoffAllows()
      throws Exception {
    int port = silentServer();
    arrivingCallsDial(port, "50ms", false);
  }

  /** The same crowd of arriving calls at a port nobody listens on (dials fail at once). */
  @Test
  void callsArrivingThroughoutAtADeadPortDialNoMoreThanTheBackoffAllows() throws Exception {
    arrivingCallsDial(ConnectionEstablishmentTest.deadPort(), "10s", true);
  }

  private static final int ARRIVALS = 4_000;

  private void arrivingCallsDial(int port, String handshakeTimeout, boolean cached)
      throws Exception {
    Proxy p =
        tether(Tether.builder().property("tether.connection.handshakeTimeout", handshakeTimeout))
            .proxy("svc:" + endpoint(port))
            .withConnectionCached(cached);
    // One call every half millisecond for 2 s, from a timer: arrivals do not wait for failures.
    List<CompletableFuture<byte[]>> calls = new CopyOnWriteArrayList<>();
    java.util.concurrent.ScheduledExecutorService arrivals =
        Executors.newSingleThreadScheduledExecutor();
    long start = System.nanoTime();
    try {
      arrivals.scheduleAtFixedRate(
          () -> {
            if (calls.size() < ARRIVALS) {
              calls.add(p.invokeAsync("hello", new byte[0]));
            }
          },
          0,
          500,
          TimeUnit.MICROSECONDS);
      await().atMost(Duration.ofSeconds(20)).until(() -> calls.size() >= ARRIVALS);
    } finally {
      arrivals.shutdownNow();
    }
    long elapsedNanos = System.nanoTime() - start;
    CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]))
        .handle((r, e) -> null)
        .get(20, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                count(TetherEvent.Kind.CONNECT_FAILED, port)
                    == count(TetherEvent.Kind.CONNECTING, port));
    long dials = count(TetherEvent.Kind.CONNECTING, port);
    assertThat(dials)
        .as("dials in %d ms by %d calls", elapsedNanos / 1_000_000, calls.size())
        .isLessThanOrEqualTo(DeadServerCrowd.dialsTheBackoffAllowsWithin(elapsedNanos) + 1);
  }

  // ---- no call outlives its invocation timeout ----

  @Test
  void callsJoiningADialWhoseHelloIsNeverAnsweredEndAtTheirInvocationTimeout() throws Exception {
    int port = silentServer();
    Proxy p =
        tether(Tether.builder().property("tether.retry.intervals", "0 50"))
            .proxy("svc:" + endpoint(port))
            .withInvocationTimeout(Duration.ofMillis(300));

    long start = System.nanoTime();
    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      calls.add(p.invokeAsync("hello", new byte[0]));
    }
    for (CompletableFuture<byte[]> c : calls) {
      assertThatThrownBy(() -> c.get(5, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(InvocationTimeoutException.class);
    }
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(3_000);
    assertThat(count(TetherEvent.Kind.CONNECTING, port)).as("one dial in flight").isEqualTo(1);
  }

  @Test
  void aCallWaitingForReadyOnADeadServerEndsAtItsInvocationTimeout() throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    Proxy p =
        tether(Tether.builder().property("tether.retry.intervals", "0 50"))
            .proxy("svc:" + endpoint(port))
            .withWaitForReady(true)
            .withInvocationTimeout(Duration.ofMillis(400));
    assertThatThrownBy(() -> p.invoke("hello", new byte[0])).isInstanceOf(TetherException.class);

    long start = System.nanoTime();
    CompletableFuture<byte[]> waiting = p.invokeAsync("hello", new byte[0]);
    assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(InvocationTimeoutException.class);
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(3_000);
  }

  @Test
  void aCallWaitingOutItsRetryIntervalEndsWhenTheRuntimeCloses() throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    // The clock stands still: only the close can end the call.
    ManualClock clock = new ManualClock(1_000_000_000L);
    Tether t =
        tether(
            Tether.builder()
                .ticker(clock)
                .scheduler(clock)
                .property("tether.retry.intervals", "0 5000"));
    CompletableFuture<byte[]> call = t.proxy("svc:" + endpoint(port)).invokeAsync("hello", null);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count(TetherEvent.Kind.CONNECT_FAILED, port) == 2);
    assertThat(call).isNotDone();

    t.close();

    assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS))
        .as("the call ended with the runtime")
        .isInstanceOf(ExecutionException.class);
  }

  @Test
  void aCallWaitingOutItsRetryIntervalWhenTheRuntimeClosesStillEndsByItsInvocationTimeout()
      throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    // Time moves only when the test moves it: on the wall clock a loaded machine could let the
    // deadline or the next round come before the second round's failure was seen.
    ManualClock clock = new ManualClock(1_000_000_000L);
    Tether t =
        tether(
            Tether.builder()
                .ticker(clock)
                .scheduler(clock)
                .property("tether.retry.intervals", "0 1000"));
    CompletableFuture<byte[]> call =
        t.proxy("svc:" + endpoint(port))
            .withInvocationTimeout(Duration.ofMillis(1500))
            .invokeAsync("hello", new byte[0]);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count(TetherEvent.Kind.CONNECT_FAILED, port) == 2);
    assertThat(call).as("waiting out its retry interval").isNotDone();

    t.close();
    clock.forward(Duration.ofMillis(1500));

    assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS))
        .as("the call ended within its invocation timeout")
        .isInstanceOf(ExecutionException.class);
  }

  @Test
  void aCallWaitingForReadyOnABackingOffKeyEndsWhenTheRuntimeCloses() throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    // The clock stands still: the key's next attempt never comes, only the close ends the wait.
    ManualClock clock = new ManualClock(1_000_000_000L);
    Tether t = tether(Tether.builder().ticker(clock).scheduler(clock));
    Proxy p = t.proxy("svc:" + endpoint(port));
    assertThatThrownBy(() -> p.invoke("hello", new byte[0])).isInstanceOf(TetherException.class);
    CompletableFuture<byte[]> waiting =
        p.withWaitForReady(true)
            .withInvocationTimeout(Duration.ofSeconds(30))
            .invokeAsync("hello", new byte[0]);
    assertThat(waiting).isNotDone();

    t.close();

    assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
  }

  @Test
  void aCallStartedAfterTheRuntimeClosedFailsAtOnce() throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    Tether t = tether(Tether.builder().property("tether.retry.intervals", "0 5000"));
    Proxy p = t.proxy("svc:" + endpoint(port));
    t.close();
    CompletableFuture<byte[]> call;
    try {
      call = p.invokeAsync("hello", new byte[0]);
    } catch (TetherException refusedAtOnce) {
      return;
    }
    assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
  }

  // ---- exceptions are each call's own ----

  @Test
  void callsFailingOnTheSameDeadDialNeverShareAnExceptionNorGrowItsSuppressedList()
      throws Exception {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    Proxy p =
        tether(Tether.builder())
            .proxy("svc:" + endpoint(a) + ":" + endpoint(b))
            .withEndpointSelection(EndpointSelection.ORDERED);

    List<Throwable> failures = new ArrayList<>();
    for (int wave = 0; wave < 5; wave++) {
      List<CompletableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        calls.add(p.invokeAsync("hello", new byte[0]));
      }
      for (CompletableFuture<byte[]> c : calls) {
        try {
          c.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          failures.add(e.getCause());
        }
      }
    }

    assertThat(failures).hasSize(40);
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable f : failures) {
      assertThat(seen.put(f, true)).as("an exception two calls got").isNull();
    }
    // Every exception reachable from any call (causes, suppressed) has a short suppressed list.
    Set<Throwable> reachable = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable f : failures) {
      collect(f, reachable);
    }
    for (Throwable r : reachable) {
      assertThat(r.getSuppressed()).as("suppressed of %s", r).hasSizeLessThanOrEqualTo(2);
    }
  }

  private static void collect(Throwable t, Set<Throwable> into) {
    if (t == null || !into.add(t)) {
      return;
    }
    collect(t.getCause(), into);
    for (Throwable s : t.getSuppressed()) {
      collect(s, into);
    }
  }

  // ---- at most once across rounds ----

  @Test
  void aNonIdempotentCallRunsOnceWhenItsServerComesBackBetweenRounds() throws Exception {
    // Below the ephemeral range: no outgoing connection takes it before the server comes back.
    int port = StablePorts.unusedPort();
    ManualClock clock = new ManualClock(1_000_000_000L);
    Tether t =
        tether(
            Tether.builder()
                .ticker(clock)
                .scheduler(clock)
                .property("tether.retry.intervals", "0 5000")
                .property("tether.heartbeat.readerIdle", "0")
                .property("tether.heartbeat.idleTimeout", "0"));
    CompletableFuture<byte[]> call =
        t.proxy("bank:" + endpoint(port)).invokeAsync("withdraw", new byte[0]);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count(TetherEvent.Kind.CONNECT_FAILED, port) == 2);
    countingServer(endpoint(port));

    clock.forward(Duration.ofSeconds(5));

    assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("ran".getBytes(StandardCharsets.UTF_8));
    assertThat(executions.get()).isEqualTo(1);
  }

  @Test
  void aNonIdempotentCallLostAfterSendIsNotRedialledByALaterRound() throws Exception {
    // Below the ephemeral range: no outgoing connection takes the port while the server is down.
    TetherServer victim = countingServer(endpoint(StablePorts.unusedPort()));
    int port = victim.endpoints().get(0).port();
    Proxy p =
        tether(Tether.builder().property("tether.retry.intervals", "0 0 0"))
            .proxy("bank:" + endpoint(port));
    CompletableFuture<byte[]> call = p.invokeAsync("slow", new byte[0]);
    await().atMost(Duration.ofSeconds(5)).until(() -> executions.get() == 1);
    victim.close();
    // Back at once on the same port: a later round would reach it.
    countingServer(endpoint(port));

    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            ConnectionLostException.class, e -> assertThat(e.mayHaveExecuted()).isTrue());
    assertThat(executions.get()).isEqualTo(1);
  }

  @Test
  void aServerAnsweringEveryRequestWithGoAwaySeesANonIdempotentCallOncePerRound() throws Exception {
    try (ScriptedServer draining =
        new ScriptedServer(r -> new GoAway(GoAwayReason.SHUTDOWN, 0, "draining"))) {
      Proxy p =
          tether(Tether.builder().property("tether.retry.intervals", "0 0"))
              .proxy("bank:" + endpoint(draining.port()))
              .withInvocationTimeout(Duration.ofSeconds(5));
      assertThatThrownBy(() -> p.invoke("withdraw", new byte[0]))
          .isInstanceOf(TetherException.class)
          .isNotInstanceOf(InvocationTimeoutException.class);
      assertThat(draining.requestsSeen()).isBetween(1, 3);
    }
  }

  @Test
  void aServerRefusingEveryRequestSeesACallOncePerRound() throws Exception {
    try (ScriptedServer full =
        new ScriptedServer(
            r -> new Response(r.requestId(), Status.REFUSED, Map.of(), new byte[0]))) {
      Proxy p =
          tether(Tether.builder().property("tether.retry.intervals", "0 0"))
              .proxy("bank:" + endpoint(full.port()))
              .withInvocationTimeout(Duration.ofSeconds(5));
      assertThatThrownBy(() -> p.invoke("withdraw", new byte[0]))
          .isInstanceOf(TetherException.class)
          .isNotInstanceOf(InvocationTimeoutException.class);
      assertThat(full.requestsSeen()).isBetween(1, 3);
    }
  }

  @Test
  void anAttemptTimeoutOverRoundsNeverRunsANonIdempotentCallTwice() throws Exception {
    TetherServer a = countingServer("tcp -h 127.0.0.1 -p 0");
    TetherServer b = countingServer("tcp -h 127.0.0.1 -p 0");
    Proxy p =
        tether(Tether.builder().property("tether.retry.intervals", "0 0 0"))
            .proxy("bank:" + a.endpoints().get(0) + ":" + b.endpoints().get(0))
            .withAttemptTimeout(Duration.ofMillis(100))
            .withHedging(Duration.ofMillis(20), 3)
            .withInvocationTimeout(Duration.ofSeconds(3));
    assertThatThrownBy(() -> p.invoke("slow", new byte[0])).isInstanceOf(TetherException.class);
    assertThat(executions.get()).isEqualTo(1);
  }

  @Test
  void hedgedIdempotentCallsWithAttemptTimeoutsOverRoundsEndWithinTheInvocationTimeout()
      throws Exception {
    TetherServer a = countingServer("tcp -h 127.0.0.1 -p 0");
    int dead = ConnectionEstablishmentTest.deadPort();
    Proxy p =
        tether(Tether.builder().property("tether.retry.intervals", "0 0 0"))
            .proxy("bank:" + a.endpoints().get(0) + ":" + endpoint(dead))
            .withAttemptTimeout(Duration.ofMillis(100))
            .withHedging(Duration.ofMillis(20), 3)
            .withInvocationTimeout(Duration.ofMillis(800));
    long start = System.nanoTime();
    assertThatThrownBy(() -> p.invoke("slow", new byte[0], Idempotency.IDEMPOTENT))
        .isInstanceOf(TetherException.class);
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(3_000);
    // 4 rounds, one live endpoint: at most one execution per round and per hedge.
    assertThat(executions.get()).isLessThanOrEqualTo(4 * 3);
  }

  // ---- a node group's keys vs a pinned proxy's ----

  // ---- the endpoint list changes between rounds ----

  @Test
  void aNameThatMovesToALiveServerBetweenRoundsIsFollowedByTheCallsNextRound() throws Exception {
    TetherServer live = countingServer("tcp -h 127.0.0.1 -p 0");
    int port = live.endpoints().get(0).port();
    // Nobody listens on that port of 127.0.0.2: the first answer's dials are refused.
    java.util.concurrent.atomic.AtomicReference<String> answer =
        new java.util.concurrent.atomic.AtomicReference<>("127.0.0.2");
    ManualClock clock = new ManualClock(1_000_000_000L);
    Tether t =
        tether(
            Tether.builder()
                .ticker(clock)
                .scheduler(clock)
                .resolver(host -> List.of(InetAddress.getByName(answer.get())))
                .property("tether.retry.intervals", "0 5000")
                .property("tether.heartbeat.readerIdle", "0")
                .property("tether.heartbeat.idleTimeout", "0"));
    CompletableFuture<byte[]> call =
        t.proxy("bank:tcp -h svc.tether.test -p " + port).invokeAsync("withdraw", new byte[0]);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                events.stream().filter(e -> e.kind() == TetherEvent.Kind.CONNECT_FAILED).count()
                    == 2);
    assertThat(call).isNotDone();
    answer.set("127.0.0.1");

    clock.forward(Duration.ofSeconds(5));

    assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("ran".getBytes(StandardCharsets.UTF_8));
    assertThat(executions.get()).isEqualTo(1);
  }
}
