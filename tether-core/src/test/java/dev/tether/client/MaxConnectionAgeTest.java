package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testing.StablePorts;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Maximum connection age on real loopback sockets: connections past their age (the server's
 * GOAWAY(MAX_AGE) or the client's own {@code tether.connection.maxAge}) are replaced under load
 * with no call failed and none run twice (every call is non-idempotent, each executions counted by
 * its key on the server), and a server started after the client, behind a list, gets calls within
 * two ages. The timer logic itself is tested on a fake clock in ServerConnectionTest.
 */
class MaxConnectionAgeTest {
  private static final int CALLERS = 4;

  /** Bounds of every load loop: calls per caller, and the wall time. */
  private static final int MAX_CALLS_PER_CALLER = 50_000;

  private static final Duration LOAD_LIMIT = Duration.ofSeconds(20);

  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** How often each request key ran on any server. */
  private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

  /** When each server (by name) ran its first call, on System.nanoTime. */
  private final Map<String, Long> firstCallNanos = new ConcurrentHashMap<>();

  private final List<TetherEvent.Kind> clientEvents = new CopyOnWriteArrayList<>();
  private final List<String> retries = new CopyOnWriteArrayList<>();
  private final AtomicLong accepted = new AtomicLong();

  /** Every call's key is new, across loads too. */
  private final AtomicLong keys = new AtomicLong();

  private final ExecutorService callers = Executors.newFixedThreadPool(CALLERS);

  @AfterEach
  void stop() throws Exception {
    callers.shutdownNow();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private TetherServer server(String name, int port, Duration maxAge) {
    TetherServer.Builder b =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p " + port)
            .random(new Random(23))
            .listener(
                e -> {
                  if (e.kind() == TetherEvent.Kind.ACCEPTED) {
                    accepted.incrementAndGet();
                  }
                })
            .service(
                "svc",
                (op, payload, ctx) -> {
                  firstCallNanos.putIfAbsent(name, System.nanoTime());
                  executions
                      .computeIfAbsent(
                          new String(payload, StandardCharsets.UTF_8), k -> new AtomicInteger())
                      .incrementAndGet();
                  return name.getBytes(StandardCharsets.UTF_8);
                });
    if (maxAge != null) {
      b.maxConnectionAge(maxAge);
    }
    TetherServer s = b.build().start();
    closeables.add(s);
    return s;
  }

  private Tether client(String maxAge) {
    Tether.Builder b =
        Tether.builder()
            .random(new Random(5))
            .listener(
                e -> {
                  clientEvents.add(e.kind());
                  if (e.kind() == TetherEvent.Kind.RETRY) {
                    retries.add(e.detail());
                  }
                });
    if (maxAge != null) {
      b.property("tether.connection.maxAge", maxAge);
    }
    Tether t = b.build();
    closeables.add(t);
    return t;
  }

  private long count(TetherEvent.Kind kind) {
    return clientEvents.stream().filter(k -> k == kind).count();
  }

  /**
   * Each caller calls its proxies in turn, each call with a key of its own, until {@code enough}
   * holds (checked every 100 calls) or its bounds are reached; returns the servers' answers.
   */
  private List<String> load(List<Proxy> proxies, BooleanSupplier enough) throws Exception {
    long deadline = System.nanoTime() + LOAD_LIMIT.toNanos();
    List<Future<List<String>>> runs = new ArrayList<>();
    for (int c = 0; c < CALLERS; c++) {
      int caller = c;
      runs.add(
          callers.submit(
              () -> {
                List<String> answers = new ArrayList<>();
                for (int i = 0; i < MAX_CALLS_PER_CALLER && System.nanoTime() < deadline; i++) {
                  if (i % 100 == 0 && i > 0 && enough.getAsBoolean()) {
                    break;
                  }
                  Proxy p = proxies.get((caller + i) % proxies.size());
                  byte[] key = ("call-" + keys.incrementAndGet()).getBytes(StandardCharsets.UTF_8);
                  answers.add(new String(p.invoke("write", key), StandardCharsets.UTF_8));
                }
                return answers;
              }));
    }
    List<String> all = new ArrayList<>();
    for (Future<List<String>> run : runs) {
      all.addAll(
          run.get(
              LOAD_LIMIT.toSeconds() + 10, TimeUnit.SECONDS)); // a failed call fails the test here
    }
    return all;
  }

  private void assertEveryCallRanExactlyOnce(List<String> answers) {
    assertThat(executions).hasSize(answers.size());
    assertThat(executions.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  @Test
  void connectionsPastTheServersMaxAgeAreReplacedUnderLoadWithNoCallFailedOrRunTwice()
      throws Exception {
    TetherServer s = server("a", 0, Duration.ofMillis(150));
    Tether tether = client(null);
    Proxy proxy = tether.proxy(s.proxyString("svc"));

    List<String> answers =
        load(
            List.of(proxy),
            () -> s.status().aged() >= 4 && count(TetherEvent.Kind.CONNECTION_ROTATED) >= 4);

    assertThat(s.status().aged()).isGreaterThanOrEqualTo(4);
    assertThat(count(TetherEvent.Kind.CONNECTION_ROTATED)).isGreaterThanOrEqualTo(4);
    // A call that took the old connection in the instant it began to drain is moved unsent; the
    // server refused nothing, and nothing that may have run was tried again.
    assertThat(retries).allSatisfy(detail -> assertThat(detail).contains("after NOT_SENT"));
    assertEveryCallRanExactlyOnce(answers);
    // The server's events reach its listener on a thread of their own, maybe after the client's.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(accepted.get())
                    .as("one replacement per rotation")
                    .isGreaterThanOrEqualTo(5));
  }

  @Test
  void connectionsPastTheClientsMaxAgeAreReplacedUnderLoadWithNoCallFailedOrRunTwice()
      throws Exception {
    TetherServer s = server("a", 0, null);
    Tether tether = client("150ms");
    Proxy proxy = tether.proxy(s.proxyString("svc"));

    List<String> answers =
        load(List.of(proxy), () -> count(TetherEvent.Kind.CONNECTION_ROTATED) >= 4);

    assertThat(count(TetherEvent.Kind.CONNECTION_ROTATED)).isGreaterThanOrEqualTo(4);
    assertThat(s.status().aged()).as("the server set no age").isZero();
    assertEveryCallRanExactlyOnce(answers);
    await().atMost(Duration.ofSeconds(5)).until(() -> s.status().connections() == 1);
  }

  @Test
  void serverStartedAfterTheClientBehindAListGetsCallsWithinTwoAges() throws Exception {
    Duration age = Duration.ofMillis(800);
    int laterPort =
        StablePorts.unusedPort(); // below the ephemeral range: no connection takes it meanwhile
    TetherServer a = server("a", 0, age);
    Tether tether = client(null);
    String list =
        "svc:tcp -h 127.0.0.1 -p "
            + a.endpoints().get(0).port()
            + ":tcp -h 127.0.0.1 -p "
            + laterPort;
    List<Proxy> proxies = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      proxies.add(tether.proxy(list)); // RANDOM selection, each proxy its own binding
    }
    assertThat(load(proxies, () -> true)).containsOnly("a");

    server("b", laterPort, age);
    long startedNanos = System.nanoTime();
    List<String> answers = new CopyOnWriteArrayList<>();
    await()
        .atMost(age.multipliedBy(10))
        .until(
            () -> {
              answers.addAll(load(proxies, () -> true));
              return answers.contains("b");
            });

    // Timed by b's own first call, not by when a load noticed it: a load's hundreds of calls take
    // up to a second on a loaded machine, which is not the time b took to get traffic.
    assertThat(Duration.ofNanos(firstCallNanos.get("b") - startedNanos))
        .isLessThan(age.multipliedBy(3));
    assertThat(executions.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }
}
