package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Ranges are values: the node-group key relies on equal ranges being equal objects. */
class VersionRangeEqualityTest {
  @Test
  void rangesHoldingTheSameVersionsAreEqualHoweverTheyAreWritten() {
    VersionRange a = VersionRange.parse("[2,3)");
    VersionRange b = VersionRange.parse("[2.0, 3.0.0)");
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(VersionRange.parse("[,3)")).isEqualTo(VersionRange.parse("(,3.0)"));
    assertThat(VersionRange.parse("1.5")).isEqualTo(VersionRange.parse("[1.5,1.5]"));
  }

  @Test
  void rangesThatDifferInABoundOrItsInclusionAreNotEqual() {
    VersionRange a = VersionRange.parse("[2.0,3.0)");
    assertThat(a).isNotEqualTo(VersionRange.parse("[2.0,3.0]"));
    assertThat(a).isNotEqualTo(VersionRange.parse("(2.0,3.0)"));
    assertThat(a).isNotEqualTo(VersionRange.parse("[2.0,3.1)"));
    assertThat(a).isNotEqualTo(VersionRange.parse("[2.0,)"));
    assertThat(VersionRange.parse("[2.10,)")).isNotEqualTo(VersionRange.parse("[2.1,)"));
  }
}
