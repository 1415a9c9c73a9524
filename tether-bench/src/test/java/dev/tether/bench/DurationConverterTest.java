package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DurationConverterTest {

  private final DurationConverter converter = new DurationConverter();

  @Test
  void unitsAreMillisecondsSecondsOrMinutes() {
    assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(converter.convert("5s")).isEqualTo(Duration.ofSeconds(5));
    assertThat(converter.convert("2min")).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void aPlainNumberIsSeconds() {
    assertThat(converter.convert("10")).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void otherTextIsRefused() {
    assertThatThrownBy(() -> converter.convert("5h"))
        .isInstanceOf(CommandLine.TypeConversionException.class);
    assertThatThrownBy(() -> converter.convert("-1s"))
        .isInstanceOf(CommandLine.TypeConversionException.class);
  }

  @Test
  void formatPrefersWholeSeconds() {
    assertThat(DurationConverter.format(Duration.ofSeconds(15))).isEqualTo("15s");
    assertThat(DurationConverter.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
  }
}
