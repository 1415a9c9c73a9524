package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.CallPhase;
import dev.tether.ConnectFailedException;
import dev.tether.EndpointSelection;
import dev.tether.InvocationTimeoutException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testing.ManualClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rounds of a call over its endpoints, on real loopback sockets (the connection-establishment
 * behaviour): a call's later rounds dial again the endpoints it dialled and saw fail, while the
 * backoff still paces what a crowd of calls dials. Dials are counted by the CONNECTING events each
 * endpoint's supervisor emits.
 */
class CallRoundsTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
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

  /** The events of {@code kind} about the endpoint on {@code port}. */
  private long count(TetherEvent.Kind kind, int port) {
    Pattern onPort = Pattern.compile("-p " + port + "\\b");
    return events.stream()
        .filter(e -> e.kind() == kind && e.endpoint() != null)
        .filter(e -> onPort.matcher(e.endpoint()).find())
        .count();
  }

  /**
   * The dials of the endpoint on {@code port} once at least {@code failed} of them were heard to
   * fail and none is still being heard of (events reach listeners on their own thread).
   */
  private long dialsOnceFailed(int port, long failed) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              long failures = count(TetherEvent.Kind.CONNECT_FAILED, port);
              return failures >= failed && failures == count(TetherEvent.Kind.CONNECTING, port);
            });
    return count(TetherEvent.Kind.CONNECTING, port);
  }

  private Proxy overTwoDeadEndpoints(Tether t, int a, int b) {
    return t.proxy("svc:" + endpoint(a) + ":" + endpoint(b))
        .withEndpointSelection(EndpointSelection.ORDERED);
  }

  @Test
  void aLoneCallAgainstTwoDeadEndpointsDialsEachTwiceByDefault() throws IOException {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    // A clock that stands still: no backoff timer fires, so every dial is the call's own.
    ManualClock clock = new ManualClock(1_000_000_000L);
    Proxy p = overTwoDeadEndpoints(tether(Tether.builder().ticker(clock).scheduler(clock)), a, b);

    assertThatThrownBy(() -> p.invoke("hello", new byte[0]))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("2 round(s)");

    assertThat(dialsOnceFailed(a, 2)).as("dials of the first endpoint").isEqualTo(2);
    assertThat(dialsOnceFailed(b, 2)).as("dials of the second endpoint").isEqualTo(2);
  }

  @Test
  void retryIntervalsOfZeroAndFiftyDialEachDeadEndpointThreeTimes() throws IOException {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    Proxy p =
        overTwoDeadEndpoints(
            tether(Tether.builder().property("tether.retry.intervals", "0 50")), a, b);

    assertThatThrownBy(() -> p.invoke("hello", new byte[0]))
        .isInstanceOf(ConnectFailedException.class)
        .hasMessageContaining("3 round(s)");

    assertThat(dialsOnceFailed(a, 3)).as("dials of the first endpoint").isEqualTo(3);
    assertThat(dialsOnceFailed(b, 3)).as("dials of the second endpoint").isEqualTo(3);
  }

  @Test
  void anInvocationTimeoutCutsTheRoundsShortWithoutWaitingOutTheInterval() throws Exception {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    // The deadline is on a clock only the test moves: on a real one a loaded machine's four dials
    // outlasted 300 ms, and the deadline struck before the call reached its interval.
    ManualClock clock = new ManualClock(1_000_000_000L);
    Duration timeout = Duration.ofMillis(300);
    Proxy p =
        overTwoDeadEndpoints(
                tether(
                    Tether.builder()
                        .ticker(clock)
                        .scheduler(clock)
                        .property("tether.retry.intervals", "0 10000")),
                a,
                b)
            .withInvocationTimeout(timeout);

    CompletableFuture<byte[]> call = p.invokeAsync("hello", new byte[0]);
    assertThat(dialsOnceFailed(a, 2)).as("dials of the first endpoint").isEqualTo(2);
    assertThat(dialsOnceFailed(b, 2)).as("dials of the second endpoint").isEqualTo(2);
    // In its 10 s interval the call holds its next round until its deadline, beside the deadline.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> Collections.frequency(clock.pendingDelays(), timeout) == 2);
    assertThat(call).isNotDone();

    clock.forward(timeout);

    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            InvocationTimeoutException.class,
            e ->
                assertThat(e.timeline())
                    .extracting(CallPhase::kind)
                    .contains(CallPhase.Kind.RETRY_DELAY));
  }

  @Test
  void aServerThatComesBackWithinTheCallsRetryIntervalAnswersThatCall() throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    ManualClock clock = new ManualClock(1_000_000_000L);
    Tether t =
        tether(
            Tether.builder()
                .ticker(clock)
                .scheduler(clock)
                .property("tether.retry.intervals", "0 5000")
                .property("tether.heartbeat.readerIdle", "0")
                .property("tether.heartbeat.idleTimeout", "0"));
    Proxy p = t.proxy("svc:" + endpoint(port));

    CompletableFuture<byte[]> call = p.invokeAsync("hello", new byte[0]);
    // Two rounds failed: the call now waits out its 5 s interval on the clock.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> count(TetherEvent.Kind.CONNECT_FAILED, port) == 2);
    TetherServer server =
        TetherServer.builder()
            .endpoints(endpoint(port))
            .service("svc", (op, payload, ctx) -> "back".getBytes(StandardCharsets.UTF_8))
            .build()
            .start();
    closeables.add(0, server);
    assertThat(call).isNotDone();

    clock.forward(Duration.ofSeconds(5));

    assertThat(new String(call.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
        .isEqualTo("back");
    assertThat(count(TetherEvent.Kind.CONNECTING, port)).isEqualTo(3);
  }

  @Test
  void fourCallersForThreeSecondsDialADeadServerNoMoreOftenThanTheBackoffAllowsPlusOneWalk()
      throws Exception {
    int port = ConnectionEstablishmentTest.deadPort();
    Proxy p = tether(Tether.builder()).proxy("svc:" + endpoint(port));

    long start = System.nanoTime();
    long calls = DeadServerCrowd.hammer(p, 4, Duration.ofSeconds(3));
    long elapsedNanos = System.nanoTime() - start;

    assertThat(calls).as("the callers kept calling").isGreaterThan(100);
    // The first walk's second round is the one dial beside the backoff's schedule.
    assertThat(dialsOnceFailed(port, 1))
        .as("dials in %d ms by %d calls", elapsedNanos / 1_000_000, calls)
        .isLessThanOrEqualTo(DeadServerCrowd.dialsTheBackoffAllowsWithin(elapsedNanos) + 1);
  }
}
