package dev.tether.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VersionRangeTest {
  @Test
  void halfOpenRangeIncludesItsLowerBoundOnly() {
    VersionRange r = VersionRange.parse("[2.0,3.0)");
    assertThat(r.contains("2.0")).isTrue();
    assertThat(r.contains("2.10.1")).isTrue();
    assertThat(r.contains("3.0.0")).isFalse();
    assertThat(r.contains("1.99")).isFalse();
  }

  @Test
  void openEndsAndExactVersionsRead() {
    assertThat(VersionRange.parse("(2.1,)").contains("2.1")).isFalse();
    assertThat(VersionRange.parse("(2.1,)").contains("2.1.1")).isTrue();
    assertThat(VersionRange.parse("[,2]").contains("2.0.0")).isTrue();
    assertThat(VersionRange.parse("1.5").contains("1.5.0")).isTrue();
    assertThat(VersionRange.parse("1.5").contains("1.6")).isFalse();
  }

  @Test
  void aQualifierDoesNotOrderVersions() {
    assertThat(VersionRange.parse("[2.0,3.0)").contains("2.5-beta")).isTrue();
  }

  @Test
  void rejectsARangeWithoutComma() {
    assertThatThrownBy(() -> VersionRange.parse("[2.0]"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
