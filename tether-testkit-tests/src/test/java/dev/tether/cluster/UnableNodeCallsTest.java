package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectionLostException;
import dev.tether.EndpointSelection;
import dev.tether.Idempotency;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.Direction;
import dev.tether.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Calls that were already waiting on a node when it turned out unable, on real sockets with three
 * nodes: they move to a peer as soon as the node is known unable, long before their deadline, as
 * far as the at-most-once rule allows. A call never written moves, idempotent or not, and runs
 * once; a non-idempotent call written to the node stays failed, since the node may have run it.
 * Every server counts how often it ran each call.
 */
class UnableNodeCallsTest {
  /** Long, so that a call which waited out its deadline could not pass for one that moved. */
  private static final Duration INVOCATION_TIMEOUT = Duration.ofSeconds(5);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  /** How often each call ran, by its id, then by node. */
  private final Map<String, Map<String, AtomicInteger>> runs = new ConcurrentHashMap<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /**
   * A node named {@code name} behind its own fault proxy, taking {@code maxConcurrent} calls at
   * once per connection (the client holds the others unwritten until a slot frees).
   */
  private FaultProxy node(String name, int maxConcurrent) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .maxConcurrentRequests(maxConcurrent)
            .service(
                "node",
                (op, payload, ctx) -> {
                  String id = new String(payload, StandardCharsets.UTF_8);
                  runs.computeIfAbsent(id, k -> new ConcurrentHashMap<>())
                      .computeIfAbsent(name, k -> new AtomicInteger())
                      .incrementAndGet();
                  return name.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    FaultProxy fp = FaultProxy.start("127.0.0.1", s.endpoints().get(0).port());
    closeables.add(fp);
    return fp;
  }

  private Tether client(String... properties) {
    Tether.Builder b = Tether.builder().listener(events::add);
    for (int i = 0; i < properties.length; i += 2) {
      b.property(properties[i], properties[i + 1]);
    }
    Tether t = b.build();
    closeables.add(t);
    return t;
  }

  private static String endpoints(FaultProxy... nodes) {
    StringBuilder s = new StringBuilder("node");
    for (FaultProxy n : nodes) {
      s.append(':').append(n.endpoint());
    }
    return s.toString();
  }

  /** How often the call {@code id} ran, on every node together. */
  private int runsOf(String id) {
    Map<String, AtomicInteger> byNode = runs.getOrDefault(id, Map.of());
    return byNode.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  /** One call's outcome: when it ended, counted from {@code startNanos}, and how. */
  private record Ended(String id, boolean idempotent, long millis, Throwable failure) {}

  /**
   * {@code count} calls at once, every other one an increment (not idempotent), each with its own
   * id; waits for every one of them.
   */
  private static List<Ended> callAtOnce(Proxy p, String prefix, int count) {
    long start = System.nanoTime();
    List<CompletableFuture<Ended>> calls = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      boolean idempotent = i % 2 == 0;
      String id = prefix + (idempotent ? "put-" : "inc-") + i;
      calls.add(
          p.invokeAsync(
                  idempotent ? "put" : "inc",
                  id.getBytes(StandardCharsets.UTF_8),
                  idempotent ? Idempotency.IDEMPOTENT : Idempotency.NOT_IDEMPOTENT)
              .handle(
                  (reply, failure) ->
                      new Ended(
                          id,
                          idempotent,
                          (System.nanoTime() - start) / 1_000_000,
                          failure instanceof CompletionException ce ? ce.getCause() : failure)));
    }
    return calls.stream().map(CompletableFuture::join).toList();
  }

  private long retriesOff(FaultProxy node, String operation, String outcome) {
    return events.stream()
        .filter(e -> e.kind() == TetherEvent.Kind.RETRY)
        .filter(e -> node.endpoint().equals(e.endpoint()))
        .filter(e -> e.detail().startsWith("retrying " + operation + " of"))
        .filter(e -> e.detail().contains("after " + outcome))
        .count();
  }

  @Test
  void
      callsQueuedOnANodeThatFreezesMoveToPeersOnceItsConnectionIsFoundDeadAndUnwrittenIncrementsRunOnce() {
    // Two calls in flight per connection: the rest of a node's share waits unwritten behind them.
    FaultProxy frozen = node("frozen", 2);
    FaultProxy second = node("second", 2);
    FaultProxy third = node("third", 2);
    Tether t =
        client("tether.heartbeat.readerIdle", "250ms", "tether.heartbeat.idleTimeout", "750ms");
    Proxy p =
        t.proxy(endpoints(frozen, second, third))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withInvocationTimeout(INVOCATION_TIMEOUT);
    p.connectAsync();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> t.status().nodes().stream().allMatch(n -> n.health().equals("ALIVE")));
    // Warm: the extra connections a node's share needs beside its own are open, the code is
    // loaded (a cold JVM's first calls may even outlast the short heartbeat).
    callAtOnce(p, "warm-", 30);
    runs.clear();
    events.clear();

    frozen.freeze();
    List<Ended> ended = callAtOnce(p, "", 60);

    List<Ended> failed = ended.stream().filter(e -> e.failure() != null).toList();
    long slowest = ended.stream().mapToLong(Ended::millis).max().orElseThrow();
    long unwrittenIncrementsMoved = retriesOff(frozen, "inc", "NOT_SENT");
    long writtenPutsMoved = retriesOff(frozen, "put", "LOST_AFTER_SEND");
    System.out.printf(
        "frozen node: %d calls failed, %d unwritten increments and %d written puts moved to peers,"
            + " the slowest call took %d ms (deadline %d ms)%n",
        failed.size(),
        unwrittenIncrementsMoved,
        writtenPutsMoved,
        slowest,
        INVOCATION_TIMEOUT.toMillis());

    // Round robin gave the frozen node a third of the calls; two per connection were written (the
    // warm-up opened extra connections beside its own), the rest waited.
    assertThat(unwrittenIncrementsMoved).isGreaterThanOrEqualTo(5);
    assertThat(slowest).isLessThan(INVOCATION_TIMEOUT.toMillis() / 2);
    // Only an increment written to the frozen node fails, and it did not move: it ran nowhere.
    assertThat(failed)
        .allSatisfy(
            e -> {
              assertThat(e.idempotent()).isFalse();
              assertThat(e.failure()).isInstanceOf(ConnectionLostException.class);
              assertThat(((ConnectionLostException) e.failure()).mayHaveExecuted()).isTrue();
              assertThat(runsOf(e.id())).isZero();
            });
    assertThat(ended.stream().filter(e -> e.failure() == null))
        .allSatisfy(e -> assertThat(runsOf(e.id())).as(e.id()).isEqualTo(1));
    assertThat(runs.values()).allSatisfy(byNode -> assertThat(byNode).doesNotContainKey("frozen"));
  }

  @Test
  void callsWaitingOnAHandshakeThatNeverEndsMoveToTheNextEndpointWhenItTimesOutAndEachRunsOnce() {
    FaultProxy silent = node("silent", 100);
    FaultProxy second = node("second", 100);
    FaultProxy third = node("third", 100);
    // It accepts connections (the proxy connects them to its server) and moves no byte: HELLO
    // is never answered.
    silent.freeze();
    Tether t = client("tether.connection.handshakeTimeout", "500ms");
    Proxy p =
        t.proxy(endpoints(silent, second, third))
            .withEndpointSelection(EndpointSelection.ORDERED)
            .withInvocationTimeout(INVOCATION_TIMEOUT);

    // Every call waits for the first endpoint's handshake, since nothing is known of it yet.
    List<Ended> ended = callAtOnce(p, "", 20);

    long slowest = ended.stream().mapToLong(Ended::millis).max().orElseThrow();
    System.out.printf(
        "HELLO never answered: %d of %d calls failed, the slowest took %d ms (handshake timeout 500"
            + " ms, deadline %d ms)%n",
        ended.stream().filter(e -> e.failure() != null).count(),
        ended.size(),
        slowest,
        INVOCATION_TIMEOUT.toMillis());
    assertThat(silent.acceptedConnections()).isPositive();
    assertThat(ended).allSatisfy(e -> assertThat(e.failure()).as(e.id()).isNull());
    assertThat(ended).allSatisfy(e -> assertThat(runsOf(e.id())).as(e.id()).isEqualTo(1));
    assertThat(runs.values()).allSatisfy(byNode -> assertThat(byNode).containsOnlyKeys("second"));
    assertThat(slowest).isLessThan(INVOCATION_TIMEOUT.toMillis() / 2);
  }

  @Test
  void aNewCallTakesAnotherServersReadyConnectionRatherThanJoinAHandshakeThatNeverEnds() {
    FaultProxy silent = node("silent", 100);
    FaultProxy second = node("second", 100);
    silent.freeze();
    // The default handshake timeout (10 s): far longer than the calls' deadline.
    Tether t = client();
    t.proxy(endpoints(second)).invoke("warm", "warm".getBytes(StandardCharsets.UTF_8));
    // Another proxy's call dials the silent server: its connection is accepted and then waits
    // for WELCOME.
    CompletableFuture<byte[]> stuck =
        t.proxy(endpoints(silent))
            .withInvocationTimeout(Duration.ofSeconds(30))
            .invokeAsync("stuck", "stuck".getBytes(StandardCharsets.UTF_8));
    await().atMost(Duration.ofSeconds(5)).until(() -> silent.acceptedConnections() > 0);
    Proxy p =
        t.proxy(endpoints(silent, second))
            .withEndpointSelection(EndpointSelection.ORDERED)
            .withInvocationTimeout(Duration.ofSeconds(2));

    List<Ended> ended = callAtOnce(p, "", 10);

    assertThat(stuck).isNotDone();
    assertThat(ended).allSatisfy(e -> assertThat(e.failure()).as(e.id()).isNull());
    assertThat(ended).allSatisfy(e -> assertThat(runsOf(e.id())).as(e.id()).isEqualTo(1));
    assertThat(runs.values()).allSatisfy(byNode -> assertThat(byNode).containsOnlyKeys("second"));
  }

  @Test
  void aNodeWhoseEveryConnectionIsCutAfterAFewCallsCostsNoIdempotentCallAndRunsNoIncrementTwice() {
    FaultProxy flapping = node("flapping", 100);
    FaultProxy second = node("second", 100);
    FaultProxy third = node("third", 100);
    Tether t = client();
    Proxy p =
        t.proxy(endpoints(flapping, second, third))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withInvocationTimeout(INVOCATION_TIMEOUT);
    p.connectAsync();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> t.status().nodes().stream().allMatch(n -> n.health().equals("ALIVE")));
    // Each connection to it from now on: its handshake and a few calls pass, then it is reset in
    // the middle of a request; the group dials it again at once and it is ready again.
    flapping.cutAfter(400, Direction.CLIENT_TO_SERVER);
    flapping.resetAll();

    List<Ended> ended = new ArrayList<>();
    for (int batch = 0; batch < 20; batch++) {
      ended.addAll(callAtOnce(p, batch + "-", 30));
    }

    long cuts =
        events.stream()
            .filter(e -> e.kind() == TetherEvent.Kind.CONNECTION_CLOSED)
            .filter(e -> flapping.endpoint().equals(e.endpoint()))
            .count();
    List<Ended> failed = ended.stream().filter(e -> e.failure() != null).toList();
    System.out.printf(
        "flapping node: cut %d times, served %d of %d calls; %d increments failed%n",
        cuts,
        runs.values().stream().filter(byNode -> byNode.containsKey("flapping")).count(),
        ended.size(),
        failed.size());
    assertThat(cuts).isGreaterThanOrEqualTo(3);
    assertThat(runs.values()).anySatisfy(byNode -> assertThat(byNode).containsKey("flapping"));
    assertThat(failed)
        .allSatisfy(
            e -> {
              assertThat(e.idempotent()).isFalse();
              assertThat(((ConnectionLostException) e.failure()).mayHaveExecuted()).isTrue();
            });
    // An idempotent call may run again after its connection was cut; an increment never does.
    assertThat(
            runs.keySet().stream()
                .filter(id -> id.contains("inc-") && runsOf(id) > 1)
                .map(id -> id + runs.get(id)))
        .isEmpty();
  }
}
