package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class EpsilonCalculatorTest {
  private static final double[] LATENCIES_MILLIS = {0.001, 0.1, 1, 2, 22, 100, 1_000, 60_000};

  @Test
  void everyCalculatorGivesFasterNodesHigherValues() {
    List<EpsilonCalculator> calculators =
        List.of(
            EpsilonCalculator.linear(),
            EpsilonCalculator.logarithmic(),
            EpsilonCalculator.polynomial(0.5),
            EpsilonCalculator.polynomial(2));
    for (EpsilonCalculator calculator : calculators) {
      for (int i = 1; i < LATENCIES_MILLIS.length; i++) {
        assertThat(calculator.valueOf(LATENCIES_MILLIS[i - 1]))
            .as("%s at %s ms", calculator, LATENCIES_MILLIS[i - 1])
            .isGreaterThan(calculator.valueOf(LATENCIES_MILLIS[i]))
            .isPositive();
      }
    }
  }

  @Test
  void polynomialTwoIsMoreAggressiveThanLinearWhichIsMoreAggressiveThanLogarithmic() {
    assertThat(ratioOfTwoToTwentyTwoMillis(EpsilonCalculator.polynomial(2)))
        .isCloseTo(121, within(1e-9));
    assertThat(ratioOfTwoToTwentyTwoMillis(EpsilonCalculator.linear())).isCloseTo(11, within(1e-9));
    assertThat(ratioOfTwoToTwentyTwoMillis(EpsilonCalculator.logarithmic()))
        .isCloseTo(2.854, within(1e-3));
  }

  @Test
  void formulasMatchTheirDocumentation() {
    assertThat(EpsilonCalculator.linear().valueOf(4)).isEqualTo(0.25);
    assertThat(EpsilonCalculator.logarithmic().valueOf(Math.E - 1)).isCloseTo(1, within(1e-12));
    assertThat(EpsilonCalculator.polynomial(2).valueOf(4)).isEqualTo(1.0 / 16);
    assertThat(EpsilonCalculator.polynomial(1).valueOf(4))
        .isEqualTo(EpsilonCalculator.linear().valueOf(4));
  }

  @Test
  void calculatorsAreValuesThatPrintTheirKind() {
    assertThat(EpsilonCalculator.polynomial(2)).isEqualTo(EpsilonCalculator.polynomial(2));
    assertThat(EpsilonCalculator.polynomial(3).toString()).contains("Polynomial", "3.0");
  }

  @Test
  void polynomialRefusesAnExponentThatWouldNotFavourFasterNodes() {
    assertThatThrownBy(() -> EpsilonCalculator.polynomial(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EpsilonCalculator.polynomial(-1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> EpsilonCalculator.polynomial(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static double ratioOfTwoToTwentyTwoMillis(EpsilonCalculator calculator) {
    return calculator.valueOf(2) / calculator.valueOf(22);
  }
}
