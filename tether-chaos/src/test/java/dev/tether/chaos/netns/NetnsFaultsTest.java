package dev.tether.chaos.netns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tether.chaos.Outcome;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real kernel faults between a client and a server in two network namespaces this test makes itself
 * ({@link Netns}), each side a child JVM: nftables in the server's namespace drops everything (a
 * partition, also under a live stream), only the replies (a one-way partition), or 5% of the
 * packets. Skipped, with the reason, where namespaces cannot be added (not root) or nft is missing.
 */
class NetnsFaultsTest {
  private static final Duration JVM_START = Duration.ofSeconds(40);
  private static final String ENDPOINT = "tcp -h " + Netns.SERVER_ADDRESS + " -p 7000";
  private static final String PROXY = "chaos:" + ENDPOINT;
  private static final String FAST_HEARTBEAT = "-Dtether.heartbeat.readerIdle=250ms";
  private static final String FAST_IDLE_TIMEOUT = "-Dtether.heartbeat.idleTimeout=750ms";

  private static Netns netns;
  private static ChildJvm server;

  /** One {@code CALL} line of the client. */
  record Call(int id, long startNanos, long endNanos, Outcome outcome, String failure) {
    static Call parse(String line) {
      String[] f = line.split(" ");
      return new Call(
          Integer.parseInt(f[1]),
          Long.parseLong(f[2]),
          Long.parseLong(f[3]),
          Outcome.valueOf(f[4]),
          f[5]);
    }
  }

  @BeforeAll
  static void startServerInItsNamespace() {
    Netns.Result nft = Netns.nftAvailable();
    assumeTrue(
        nft.ok(),
        "skipped: nft is not installed (Debian: apt-get install nftables; .ci/run does it): "
            + nft.output().trim());
    Netns.Result probe = Netns.probe();
    assumeTrue(
        probe.ok(),
        "skipped: network namespaces cannot be added here (`ip netns add` needs root or"
            + " CAP_SYS_ADMIN): "
            + probe.output().trim());
    netns = Netns.create();
    server =
        ChildJvm.start(
            Netns.SERVER, List.of(), NetnsServerMain.class, Netns.SERVER_ADDRESS, "7000");
    await()
        .atMost(JVM_START)
        .until(() -> server.firstLine(l -> l.startsWith("READY")) != null || !server.isAlive());
    assertThat(server.isAlive()).as("server JVM (errors in %s)", server.errors()).isTrue();
  }

  @AfterEach
  void healTheNetwork() {
    if (netns != null) {
      netns.heal();
    }
  }

  @AfterAll
  static void removeNamespaces() {
    try {
      if (server != null) {
        server.close();
      }
    } finally {
      if (netns != null) {
        netns.close();
      }
    }
  }

  @Test
  void fullPartitionIsDetectedByHeartbeatAndRecoversWithoutARestart() throws Exception {
    try (ChildJvm client =
        ChildJvm.start(
            Netns.CLIENT,
            List.of(
                FAST_HEARTBEAT,
                FAST_IDLE_TIMEOUT,
                "-Dnetns.firstId=100000",
                "-Dnetns.timeoutMillis=1000"),
            NetnsClientMain.class,
            PROXY,
            "idempotent",
            "1",
            "20",
            "30")) {
      awaitLine(client, l -> l.startsWith("CALL") && Call.parse(l).outcome() == Outcome.OK);

      long cut = System.nanoTime();
      netns.rule("in", "iifname \"" + Netns.SERVER_LINK + "\" drop");
      netns.rule("out", "oifname \"" + Netns.SERVER_LINK + "\" drop");
      String timeout =
          awaitLine(
              client,
              l ->
                  l.startsWith("EVENT")
                      && l.contains("HEARTBEAT_TIMEOUT")
                      && Long.parseLong(l.split(" ")[1]) > cut);
      long detected = Long.parseLong(timeout.split(" ")[1]);
      // The client lives with the partition: a call it starts after noticing fails.
      awaitLine(
          client,
          l ->
              l.startsWith("CALL")
                  && Call.parse(l).startNanos() > detected
                  && Call.parse(l).outcome() != Outcome.OK);

      long healed = System.nanoTime();
      netns.heal();
      Call recovered =
          Call.parse(
              awaitLine(
                  client,
                  l ->
                      l.startsWith("CALL")
                          && Call.parse(l).outcome() == Outcome.OK
                          && Call.parse(l).endNanos() > healed));

      assertThat(server.isAlive()).as("the server was not restarted").isTrue();
      System.out.printf(
          Locale.ROOT,
          "netns full partition: detected by heartbeat after %d ms"
              + " (readerIdle 250 ms, idleTimeout 750 ms); partition held %d ms; first call answered %d ms after the heal%n",
          millis(detected - cut),
          millis(healed - cut),
          millis(recovered.endNanos() - healed));
      assertThat(millis(detected - cut)).as("time to detect").isLessThan(5_000);
    }
  }

  @Test
  void aStreamRidesThroughAFullPartitionWithEveryItemOnceAndInOrder() throws Exception {
    int items = 150;
    try (ChildJvm client =
        ChildJvm.start(
            Netns.CLIENT,
            List.of(FAST_HEARTBEAT, FAST_IDLE_TIMEOUT),
            NetnsStreamMain.class,
            ENDPOINT,
            Integer.toString(items))) {
      awaitLine(client, l -> l.startsWith("ITEM 20 "));

      long cut = System.nanoTime();
      netns.rule("in", "iifname \"" + Netns.SERVER_LINK + "\" drop");
      netns.rule("out", "oifname \"" + Netns.SERVER_LINK + "\" drop");
      String timeout =
          awaitLine(
              client,
              l ->
                  l.startsWith("EVENT")
                      && l.contains("HEARTBEAT_TIMEOUT")
                      && Long.parseLong(l.split(" ")[1]) > cut);
      long healed = System.nanoTime();
      netns.heal();
      String end = awaitLine(client, l -> l.startsWith("END "));

      List<Long> numbers =
          client.lines().stream()
              .filter(l -> l.startsWith("ITEM "))
              .map(l -> Long.parseLong(l.split(" ")[1]))
              .toList();
      String resumed = client.firstLine(l -> l.startsWith("EVENT") && l.contains("STREAM_RESUMED"));
      assertThat(end).as("how the stream ended").isEqualTo("END OK " + items);
      assertThat(numbers)
          .as("items, by the server's numbers")
          .containsExactlyElementsOf(
              java.util.stream.LongStream.rangeClosed(1, items).boxed().toList());
      assertThat(resumed).as("a STREAM_RESUMED event").isNotNull();
      System.out.printf(
          Locale.ROOT,
          "netns stream through a full partition: %d items once and in order;"
              + " heartbeat noticed after %d ms, partition held %d ms, resumed %d ms after the heal%n",
          items,
          millis(Long.parseLong(timeout.split(" ")[1]) - cut),
          millis(healed - cut),
          millis(Long.parseLong(resumed.split(" ")[1]) - healed));
    }
  }

  @Test
  void oneWayPartitionFailsNonIdempotentCallsAsMayHaveExecutedAndRunsEachAtMostOnce()
      throws Exception {
    int firstId = 200_000;
    List<Call> calls;
    try (ChildJvm client =
        ChildJvm.start(
            Netns.CLIENT,
            List.of(FAST_HEARTBEAT, FAST_IDLE_TIMEOUT, "-Dnetns.firstId=" + firstId),
            NetnsClientMain.class,
            PROXY,
            "non-idempotent",
            "2",
            "50",
            "30")) {
      awaitLine(client, l -> l.startsWith("CALL") && Call.parse(l).outcome() == Outcome.OK);

      long cut = System.nanoTime();
      // Requests still reach the server; its replies (and its ACKs) never leave.
      netns.rule("out", "oifname \"" + Netns.SERVER_LINK + "\" drop");
      Call lost =
          Call.parse(
              awaitLine(
                  client,
                  l ->
                      l.startsWith("CALL")
                          && Call.parse(l).outcome() == Outcome.MAY_HAVE_EXECUTED));
      // The client lives with the partition: a call it starts after the first loss fails too.
      awaitLine(
          client,
          l ->
              l.startsWith("CALL")
                  && Call.parse(l).startNanos() > lost.endNanos()
                  && Call.parse(l).outcome() != Outcome.OK);
      netns.heal();
      long healed = System.nanoTime();
      awaitLine(
          client,
          l ->
              l.startsWith("CALL")
                  && Call.parse(l).outcome() == Outcome.OK
                  && Call.parse(l).startNanos() > healed);
      client.stop();
      calls = client.lines().stream().filter(l -> l.startsWith("CALL")).map(Call::parse).toList();
    }
    // Every answered call ran on the server before it answered: its EXEC line is there by now.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                calls.stream()
                    .filter(c -> c.outcome() == Outcome.OK)
                    .allMatch(c -> executions(firstId).getOrDefault(c.id(), 0) == 1));
    Map<Integer, Integer> runs = executions(firstId);

    long mayHave = 0;
    long mayHaveRan = 0;
    long notExecuted = 0;
    for (Call c : calls) {
      int n = runs.getOrDefault(c.id(), 0);
      assertThat(n).as("executions of call %d (%s)", c.id(), c.outcome()).isLessThanOrEqualTo(1);
      switch (c.outcome()) {
        case OK -> assertThat(n).as("answered call %d ran", c.id()).isEqualTo(1);
        case NOT_EXECUTED -> {
          notExecuted++;
          assertThat(n).as("call %d reported not executed (%s)", c.id(), c.failure()).isZero();
        }
        case MAY_HAVE_EXECUTED -> {
          mayHave++;
          mayHaveRan += n;
        }
        default -> throw new AssertionError("call " + c.id() + " failed with " + c.failure());
      }
    }
    System.out.printf(
        Locale.ROOT,
        "netns one-way partition (replies dropped): %d calls; %d failed as may-have-executed"
            + " (%d of them ran once on the server, none twice); %d failed as not executed (none ran)%n",
        calls.size(),
        mayHave,
        mayHaveRan,
        notExecuted);
    assertThat(mayHaveRan).as("calls whose reply alone was lost").isPositive();
  }

  @Test
  void fivePercentLossUnderLoadFailsNoIdempotentCall() throws Exception {
    netns.rule("in", "iifname \"" + Netns.SERVER_LINK + "\" numgen random mod 100 < 5 drop");
    netns.rule("out", "oifname \"" + Netns.SERVER_LINK + "\" numgen random mod 100 < 5 drop");
    try (ChildJvm client =
        ChildJvm.start(
            Netns.CLIENT,
            List.of(
                "-Dtether.heartbeat.readerIdle=1s",
                "-Dtether.heartbeat.idleTimeout=3s",
                "-Dtether.retry.intervals=0 100 500",
                "-Dnetns.firstId=300000"),
            NetnsClientMain.class,
            PROXY,
            "idempotent",
            "4",
            "10",
            "8")) {
      await()
          .atMost(JVM_START.plusSeconds(30))
          .until(() -> client.firstLine(l -> l.startsWith("DONE")) != null || !client.isAlive());
      List<Call> calls =
          client.lines().stream().filter(l -> l.startsWith("CALL")).map(Call::parse).toList();
      long[] latencies =
          calls.stream().mapToLong(c -> c.endNanos() - c.startNanos()).sorted().toArray();
      long retries = client.lines().stream().filter(l -> l.contains(" RETRY ")).count();
      long heartbeats =
          client.lines().stream().filter(l -> l.contains(" HEARTBEAT_TIMEOUT ")).count();

      assertThat(calls).as("calls made").hasSizeGreaterThan(100);
      System.out.printf(
          Locale.ROOT,
          "netns 5%% loss each way: %d idempotent calls, %d failed; latency p50 %d ms,"
              + " p99 %d ms, max %d ms; %d retries, %d heartbeat timeouts%n",
          calls.size(),
          calls.stream().filter(c -> c.outcome() != Outcome.OK).count(),
          millis(latencies[latencies.length / 2]),
          millis(latencies[(int) (latencies.length * 0.99)]),
          millis(latencies[latencies.length - 1]),
          retries,
          heartbeats);
      assertThat(calls)
          .allSatisfy(
              c ->
                  assertThat(c.outcome())
                      .as("call %d (%s)", c.id(), c.failure())
                      .isEqualTo(Outcome.OK));
    }
  }

  private static String awaitLine(ChildJvm jvm, Predicate<String> match) {
    await().atMost(JVM_START).until(() -> jvm.firstLine(match) != null || !jvm.isAlive());
    String line = jvm.firstLine(match);
    assertThat(line)
        .as("child output (errors in %s): %s", jvm.errors(), tail(jvm.lines()))
        .isNotNull();
    return line;
  }

  private static Map<Integer, Integer> executions(int firstId) {
    Map<Integer, Integer> runs = new HashMap<>();
    for (String l : server.lines()) {
      if (l.startsWith("EXEC ")) {
        int id = Integer.parseInt(l.substring(5).trim());
        if (id >= firstId && id < firstId + 100_000) {
          runs.merge(id, 1, Integer::sum);
        }
      }
    }
    return runs;
  }

  private static List<String> tail(List<String> lines) {
    return lines.subList(Math.max(0, lines.size() - 20), lines.size());
  }

  private static long millis(long nanos) {
    return nanos / 1_000_000;
  }
}
