package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every stream system of {@link StreamFigures}, its server in this JVM over loopback: a server
 * stream and an echo deliver stamped items with a sane age and no failure, and stop once cancelled.
 */
class StreamClientsTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  /** How long a cancelled stream must bring nothing for it to count as stopped. */
  private static final Duration QUIET = Duration.ofMillis(500);

  static List<StreamScenario.StreamSystem> systems() {
    return StreamScenario.systems();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("systems")
  void serverStreamDeliversStampedItemsUntilCancelled(StreamScenario.StreamSystem system)
      throws Exception {
    runUntilCancelled(system, StreamScenario.Shape.FEED);
  }

  /** Tether's gRPC channel (tchan>...) too: its calls hold a caller's sends by the window. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("systems")
  void echoSendsEachItemBackUntilCancelled(StreamScenario.StreamSystem system) throws Exception {
    runUntilCancelled(system, StreamScenario.Shape.ECHO);
  }

  private static void runUntilCancelled(
      StreamScenario.StreamSystem system, StreamScenario.Shape shape) throws Exception {
    try (BenchServer server = system.server().server().get();
        StreamClient client = system.client().get()) {
      client.connect(server.start());
      StreamMeter meter = new StreamMeter();
      meter.measureFor(Duration.ofMinutes(1).toNanos());
      StreamMeter.Sink sink = meter.newSink();
      StreamClient.Cancellable stream =
          shape == StreamScenario.Shape.FEED ? client.feed(64, sink) : client.echo(64, sink);

      await().atMost(PATIENCE).until(() -> meter.items() >= 1_000);
      stream.cancel();

      assertThat(meter.failure()).isNull();
      assertThat(meter.ages().getMinValue()).isGreaterThanOrEqualTo(0);
      assertThat(meter.ages().getMaxValue()).isLessThan(PATIENCE.toNanos());
      // Once cancelled, what was on its way arrives, then nothing more: a stream that goes on
      // never falls quiet. How long the last items take to arrive is no business of this test
      // (a loaded machine's event loop can hold them a while), so any quiet spell counts.
      QuietSpell quiet = new QuietSpell(meter::itemsSeen);
      try {
        await()
            .atMost(PATIENCE)
            .pollInterval(Duration.ofMillis(50))
            .until(quiet::heldFor, held -> held.compareTo(QUIET) >= 0);
      } catch (ConditionTimeoutException goesOn) {
        throw new AssertionError("items kept coming after the cancel; counts seen: " + quiet);
      }
    }
  }

  /**
   * Watches a count for a spell without change: each look says how long the count has held, and the
   * looks it took, for the failure's message.
   */
  private static final class QuietSpell {
    private final LongSupplier count;
    private final List<Long> seen = new ArrayList<>();
    private long last;
    private long sinceNanos;

    QuietSpell(LongSupplier count) {
      this.count = count;
      this.last = count.getAsLong();
      this.sinceNanos = System.nanoTime();
    }

    synchronized Duration heldFor() {
      long now = count.getAsLong();
      if (now != last) {
        last = now;
        sinceNanos = System.nanoTime();
        seen.add(now);
      }
      return Duration.ofNanos(System.nanoTime() - sinceNanos);
    }

    @Override
    public synchronized String toString() {
      return seen.toString();
    }
  }
}
