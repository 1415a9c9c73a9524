package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class DurationConverterTest {
  private final DurationConverter converter = new DurationConverter();

  @Test
  void readsTheSameFormsAsTetherProperties() {
    assertThat(converter.convert("1500")).isEqualTo(Duration.ofMillis(1500));
    assertThat(converter.convert("200ms")).isEqualTo(Duration.ofMillis(200));
    assertThat(converter.convert("3s")).isEqualTo(Duration.ofSeconds(3));
    assertThat(converter.convert("15min")).isEqualTo(Duration.ofMinutes(15));
    assertThat(converter.convert("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(converter.convert("PT2S")).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void infiniteMeansNoLimit() {
    assertThat(converter.convert("infinite")).isNull();
  }

  @Test
  void rejectsWhatItCannotRead() {
    assertThatThrownBy(() -> converter.convert("3 days"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("'3 days' is not a duration");
    assertThatThrownBy(() -> converter.convert("-1s")).isInstanceOf(TypeConversionException.class);
  }
}
