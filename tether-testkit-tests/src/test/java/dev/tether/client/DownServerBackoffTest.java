package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectFailedException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherException;
import dev.tether.TetherServer;
import dev.tether.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The backoff paces every dial, on real loopback sockets: a proxy whose only server is down (a
 * fault proxy in front of it accepts each connection and resets it) is dialled by its key's
 * supervisor once per backoff delay however many calls ask, the calls fail fast meanwhile, and once
 * the server is back the next scheduled attempt reaches it.
 */
class DownServerBackoffTest {
  /** The default reconnect backoff: 100 ms doubling, ±20%. */
  private static final long INITIAL_NANOS = Duration.ofMillis(100).toNanos();

  private static final double LEAST_JITTER = 0.8;
  private static final Pattern DUE = Pattern.compile("next attempt due in (\\d+) ms");

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private TetherServer server;
  private FaultProxy down;
  private Proxy proxy;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("svc", (op, payload, ctx) -> "up".getBytes(StandardCharsets.UTF_8))
            .build()
            .start();
    closeables.add(server);
    down = FaultProxy.start("127.0.0.1", server.endpoints().get(0).port());
    closeables.add(down);
    down.refuseNew(true);
    Tether tether = Tether.builder().build();
    closeables.add(tether);
    proxy = tether.proxy("svc:" + down.endpoint());
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  @Test
  void aDownServerIsDialledNoMoreOftenThanTheBackoffAllows() throws Exception {
    long startNanos = System.nanoTime();
    Load load = hammer(4, Duration.ofSeconds(3));
    long elapsedNanos = System.nanoTime() - startNanos;

    int allowed = dialsAllowedWithin(elapsedNanos);
    assertThat(load.calls).as("the callers kept calling").isGreaterThan(100);
    assertThat(down.acceptedConnections())
        .as("dials in %d ms by %d calls", elapsedNanos / 1_000_000, load.calls)
        .isPositive()
        .isLessThanOrEqualTo(allowed);
  }

  @Test
  void callsAgainstABackingOffServerEndWithinTwoSeconds() throws Exception {
    Load load = hammer(4, Duration.ofSeconds(2));

    assertThat(load.succeeded).isZero();
    assertThat(load.longestNanos)
        .as("the longest call, in ns")
        .isLessThan(Duration.ofSeconds(2).toNanos());
    assertThat(load.unexpected).as("a failure other than ConnectFailedException").isNull();
    // A call that meets the supervisor's own attempt fails with that attempt's error, naming no
    // due time; the others fail fast naming it.
    assertThat(load.namingTheDueTime)
        .as("a fast failure naming when the next attempt is due")
        .isNotNull()
        .hasMessageContaining("reset");
  }

  @Test
  void callsSucceedSoonAfterTheServerReturns() throws Exception {
    warmTheSuccessfulCallPath();
    hammer(1, Duration.ofMillis(1500));

    down.refuseNew(false);
    // Read once the server is back: a due time read before could pass before the server returned,
    // its attempt reset and the next one twice as far off. A call that succeeds here met an
    // attempt already made since the server returned.
    long askedNanos = System.nanoTime();
    long currentDelayMillis = millisUntilNextAttempt();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(10))
        .until(this::succeeds);
    long tookMillis = (System.nanoTime() - askedNanos) / 1_000_000;

    // Time for one handshake and the awaiting poll on top of the delay.
    assertThat(tookMillis)
        .as("ms until the first success after the server came back")
        .isLessThanOrEqualTo(currentDelayMillis + 500);
  }

  /**
   * One call straight to the server through a runtime of its own, so the timed first success after
   * the outage is not a cold JVM loading the handshake and the call's path (seconds on a loaded
   * machine).
   */
  private void warmTheSuccessfulCallPath() {
    try (Tether direct = Tether.builder().build()) {
      Proxy warm =
          direct
              .proxy("svc:tcp -h 127.0.0.1 -p " + server.endpoints().get(0).port())
              .withInvocationTimeout(Duration.ofSeconds(30));
      assertThat(new String(warm.invoke("hello", new byte[0]), StandardCharsets.UTF_8))
          .isEqualTo("up");
    }
  }

  /**
   * The wait a fast-failing call names, or 0 when the call succeeds (an attempt reached the server
   * already). A call that meets the supervisor's own attempt fails with that attempt's connect
   * error instead, naming no due time, so it asks again (bounded).
   */
  private long millisUntilNextAttempt() {
    String last = null;
    for (int i = 0; i < 1_000; i++) {
      try {
        proxy.invoke("hello", new byte[0]);
        return 0;
      } catch (TetherException e) {
        last = e.getMessage();
        Matcher due = DUE.matcher(last);
        if (due.find()) {
          return Long.parseLong(due.group(1));
        }
      }
    }
    throw new AssertionError("no call named when the next attempt is due; the last said: " + last);
  }

  private boolean succeeds() {
    try {
      return "up".equals(new String(proxy.invoke("hello", new byte[0]), StandardCharsets.UTF_8));
    } catch (TetherException stillDown) {
      return false;
    }
  }

  /**
   * Dials a streak of the default backoff may make in {@code elapsedNanos}: the first, and one per
   * delay, each at its shortest.
   */
  private static int dialsAllowedWithin(long elapsedNanos) {
    int dials = 1;
    double at = 0;
    double delay = INITIAL_NANOS;
    while ((at += delay * LEAST_JITTER) <= elapsedNanos) {
      dials++;
      delay *= 2;
    }
    return dials;
  }

  /** What a load run saw. */
  private static final class Load {
    long calls;
    long succeeded;
    long longestNanos;
    Throwable namingTheDueTime;
    Throwable unexpected;
  }

  /**
   * {@code threads} callers calling as fast as they can for {@code length}, each at most 200,000
   * calls.
   */
  private Load hammer(int threads, Duration length) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Load>> runs = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        runs.add(pool.submit(() -> callFor(length)));
      }
      Load total = new Load();
      for (Future<Load> f : runs) {
        Load one = f.get(length.toMillis() + 10_000, TimeUnit.MILLISECONDS);
        total.calls += one.calls;
        total.succeeded += one.succeeded;
        total.longestNanos = Math.max(total.longestNanos, one.longestNanos);
        total.namingTheDueTime =
            one.namingTheDueTime != null ? one.namingTheDueTime : total.namingTheDueTime;
        total.unexpected = one.unexpected != null ? one.unexpected : total.unexpected;
      }
      return total;
    } finally {
      pool.shutdownNow();
    }
  }

  private Load callFor(Duration length) {
    Load load = new Load();
    long end = System.nanoTime() + length.toNanos();
    for (int i = 0; i < 200_000 && System.nanoTime() < end; i++) {
      long t0 = System.nanoTime();
      try {
        proxy.invoke("hello", new byte[0]);
        load.succeeded++;
      } catch (TetherException e) {
        if (!(e instanceof ConnectFailedException)) {
          load.unexpected = e;
        } else if (DUE.matcher(e.getMessage()).find()) {
          load.namingTheDueTime = e;
        }
      }
      load.longestNanos = Math.max(load.longestNanos, System.nanoTime() - t0);
      load.calls++;
    }
    return load;
  }
}
