package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every stream system of {@link StreamFigures}, its server in this JVM over loopback: a server
 * stream and an echo deliver stamped items with a sane age and no failure, and stop once cancelled.
 */
class StreamClientsTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  static List<StreamScenario.StreamSystem> systems() {
    return StreamScenario.systems();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("systems")
  void serverStreamDeliversStampedItemsUntilCancelled(StreamScenario.StreamSystem system)
      throws Exception {
    runUntilCancelled(system, StreamScenario.Shape.FEED);
  }

  static List<StreamScenario.StreamSystem> echoSystems() {
    return StreamScenario.systems().stream()
        .filter(system -> system.runs(StreamScenario.Shape.ECHO))
        .toList();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("echoSystems")
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
      // Once cancelled, what was on its way arrives, then nothing more.
      long[] last = {-1};
      await()
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                long now = meter.itemsSeen();
                boolean still = now == last[0];
                last[0] = now;
                return still;
              });
      await()
          .during(Duration.ofMillis(300))
          .atMost(PATIENCE)
          .until(() -> meter.itemsSeen() == last[0]);
    }
  }
}
