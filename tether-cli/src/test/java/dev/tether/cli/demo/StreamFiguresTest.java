package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StreamFiguresTest {

  @Test
  void aStreamResumedAfterTheResetWithEveryItemOnceRodeThrough() {
    StreamFigures f = new StreamFigures("server-2", 83, 0, 0, 1, 41, Duration.ofMillis(14), null);

    assertThat(f.rodeThrough()).isTrue();
    assertThat(f.describe())
        .isEqualTo(
            "83 items, none twice, none lost, resumed in 14 ms (41 before the reset, 42 after)");
  }

  @Test
  void aDuplicateOrAGapFailsTheStreamAndIsCounted() {
    StreamFigures twice =
        new StreamFigures("server-2", 83, 2, 0, 1, 41, Duration.ofMillis(14), null);
    StreamFigures gap = new StreamFigures("server-2", 83, 0, 5, 1, 41, Duration.ofMillis(14), null);

    assertThat(twice.rodeThrough()).isFalse();
    assertThat(twice.describe()).startsWith("83 items, 2 twice, none lost");
    assertThat(gap.rodeThrough()).isFalse();
    assertThat(gap.describe()).startsWith("83 items, none twice, 5 lost");
  }

  @Test
  void aStreamThatNeverResumedOrEndedEarlyDidNotRideThrough() {
    StreamFigures neverResumed = new StreamFigures("server-2", 83, 0, 0, 0, 0, null, null);
    StreamFigures lost =
        new StreamFigures(
            "server-2",
            41,
            0,
            0,
            0,
            0,
            null,
            "StreamLostException (delivered=41): stream ticks.tick lost: server shut down");
    StreamFigures nothingAfter =
        new StreamFigures("server-2", 41, 0, 0, 1, 41, Duration.ofMillis(9), null);

    assertThat(neverResumed.rodeThrough()).isFalse();
    assertThat(neverResumed.describe()).endsWith("never resumed");
    assertThat(lost.rodeThrough()).isFalse();
    assertThat(lost.describe())
        .endsWith(
            "; ended early: StreamLostException (delivered=41): stream ticks.tick lost: server shut down");
    assertThat(nothingAfter.rodeThrough()).as("no item after the resume").isFalse();
  }
}
