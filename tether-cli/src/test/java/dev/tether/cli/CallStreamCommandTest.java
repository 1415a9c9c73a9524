package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValueStore;
import dev.tether.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tether call --stream} against the demo server's {@code ticks} stream service, over
 * loopback.
 */
class CallStreamCommandTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final Pattern LOST =
      Pattern.compile("^tether call: StreamLostException \\(delivered=(\\d+)\\): ");

  private DemoServer server;
  private String ticks;

  @BeforeEach
  void startServer() {
    server =
        DemoServer.start(
            "test-server",
            "tcp -h 127.0.0.1 -p 0",
            ExecutionMode.EXECUTOR,
            new KeyValueStore(),
            () -> {},
            null,
            Duration.ofMillis(10));
    ticks = server.proxyString(DemoServer.TICKS);
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  private static String lines(long from, long to) {
    return LongStream.rangeClosed(from, to)
        .mapToObj(n -> n + System.lineSeparator())
        .collect(Collectors.joining());
  }

  private static CompletableFuture<CliRun> inBackground(String... args) {
    return CompletableFuture.supplyAsync(() -> CliRun.run(args));
  }

  @Test
  void streamPrintsEachItemOnItsOwnLineInOrderAndEndsWithTheStream() {
    CliRun run = CliRun.run("call", "--stream", ticks, "count", "5");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo(lines(1, 5));
    assertThat(run.err()).isEmpty();
  }

  @Test
  void limitCancelsAStreamWithoutEndAfterThatManyItems() {
    CliRun run = CliRun.run("call", "--stream", "--limit", "3", ticks, "count");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo(lines(1, 3));
    // The service stops once the cancel arrives: what it sent is bounded by the credit it was
    // given.
    long sent = server.stats().itemsStreamed();
    await()
        .during(Duration.ofMillis(300))
        .atMost(PATIENCE)
        .until(() -> server.stats().itemsStreamed() == sent);
    assertThat(sent).isLessThanOrEqualTo(3 + 2 * 64);
  }

  @Test
  void hexPrintsEachItemsBytes() {
    CliRun run = CliRun.run("call", "--stream", "--hex", ticks, "count", "2");

    assertThat(run.out()).isEqualTo("31" + System.lineSeparator() + "32" + System.lineSeparator());
  }

  @Test
  void aTickStreamRidesThroughAConnectionResetAndPrintsEveryItemOnce() throws Exception {
    try (FaultProxy network = FaultProxy.start("127.0.0.1", server.endpoints().get(0).port())) {
      CompletableFuture<CliRun> call =
          inBackground("call", "--stream", "ticks:" + network.endpoint(), "tick", "60");
      await().atMost(PATIENCE).until(() -> server.stats().itemsStreamed() >= 20);

      network.resetAll();

      CliRun run = call.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out()).isEqualTo(lines(1, 60));
      assertThat(run.err()).contains("resumed over a new one, nothing lost or repeated");
      assertThat(network.acceptedConnections()).as("connections through the network").isEqualTo(2);
    }
  }

  @Test
  void aStreamThatCannotResumeEndsWithStreamLostExceptionAndHowManyItemsWereDelivered()
      throws Exception {
    CompletableFuture<CliRun> call =
        inBackground("call", "--stream", "-Dtether.stream.resumeWindow=300ms", ticks, "tick");
    await().atMost(PATIENCE).until(() -> server.stats().itemsStreamed() >= 5);

    server.close();

    CliRun run = call.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(run.exitCode()).isEqualTo(1);
    Matcher lost = LOST.matcher(run.err());
    assertThat(lost.find()).as(run.err()).isTrue();
    long delivered = Long.parseLong(lost.group(1));
    assertThat(delivered).isGreaterThanOrEqualTo(1);
    assertThat(run.out())
        .as("every delivered item was printed, once")
        .isEqualTo(lines(1, delivered));
    assertThat(run.err()).doesNotContain("\tat ");
  }

  @Test
  void aRequestTheServiceRefusesEndsTheStreamWithRemoteException() {
    CliRun run = CliRun.run("call", "--stream", ticks, "count", "lots");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err().trim())
        .startsWith("tether call: RemoteException: ")
        .contains("ticks.count takes how many items to send, a decimal number")
        .contains("\"lots\"");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void anUnknownStreamServiceIsReportedAsSuch() {
    CliRun run = CliRun.run("call", "--stream", server.proxyString("nope"), "count");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).startsWith("tether call: ServiceNotFoundException: ");
  }

  @Test
  void limitWithoutStreamAndStreamWithCallOnlyOptionsAreBadInput() {
    for (List<String> args :
        List.of(
            List.of("call", "--limit", "3", ticks, "count"),
            List.of("call", "--stream", "--limit", "0", ticks, "count"),
            List.of("call", "--stream", "--oneway", ticks, "count"),
            List.of("call", "--stream", "--idempotent", ticks, "count"))) {
      CliRun run = CliRun.run(args.toArray(String[]::new));

      assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.err())
          .containsAnyOf(
              "--limit counts the items of a stream",
              "--limit must be at least 1",
              "is for calls; a stream is opened once");
    }
  }
}
