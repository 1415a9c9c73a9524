package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.internal.AgeJitter;
import java.time.Duration;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The age each connection draws: within ±10% of the setting, spread over the whole band. */
class ConnectionAgeTest {

  @Test
  void jitterSpansTenPercentEitherWay() {
    assertThat(AgeJitter.at(1_000_000, 0)).isEqualTo(900_000);
    assertThat(AgeJitter.at(1_000_000, 0.5)).isEqualTo(1_000_000);
    assertThat(AgeJitter.at(1_000_000, Math.nextDown(1.0)))
        .isLessThanOrEqualTo(1_100_000)
        .isGreaterThan(1_099_000);
  }

  @Test
  void drawnAgesStayWithinTenPercentAndUseTheWholeBand() {
    ConnectionAge age = ConnectionAge.of(Duration.ofSeconds(2), Duration.ZERO, new Random(7));
    long[] drawn = LongStream.range(0, 1_000).map(i -> age.drawAgeNanos()).toArray();

    assertThat(LongStream.of(drawn).boxed())
        .allSatisfy(n -> assertThat(n).isBetween(1_800_000_000L, 2_199_999_999L));
    assertThat(LongStream.of(drawn).min().getAsLong()).isLessThan(1_820_000_000L);
    assertThat(LongStream.of(drawn).max().getAsLong()).isGreaterThan(2_180_000_000L);
  }

  @Test
  void negativeAgeIsRefusedNamingItsKey() {
    assertThatThrownBy(() -> ConnectionAge.of(Duration.ofSeconds(-1), Duration.ZERO, new Random()))
        .hasMessageContaining("tether.server.maxConnectionAge");
  }
}
