package dev.tether.cluster;

/**
 * Turns a node's weighted average latency {@code v}, in milliseconds (always positive), into its
 * epsilon value: the weight with which {@link EpsilonGreedySelector} exploits the node. Every
 * calculator is a decreasing function, so a faster node always gets a higher value; they differ in
 * how strongly a latency gap becomes a traffic gap.
 */
public sealed interface EpsilonCalculator {
  /** The node's weight given its average latency in milliseconds; positive for positive input. */
  double valueOf(double averageLatencyMillis);

  /** {@code 1 / v}: traffic proportional to speed (a node twice as fast gets twice the share). */
  static EpsilonCalculator linear() {
    return new Linear();
  }

  /**
   * {@code 1 / ln(v + 1)}: gentler than linear for latencies above a couple of milliseconds, so
   * slower nodes keep more traffic (2 ms vs 22 ms: about 2.9x instead of 11x).
   */
  static EpsilonCalculator logarithmic() {
    return new Logarithmic();
  }

  /**
   * {@code 1 / v^exponent}: above 1 more aggressive than linear ({@code polynomial(2)} turns 2 ms
   * vs 22 ms into 121x), below 1 gentler.
   *
   * @param exponent positive and finite
   */
  static EpsilonCalculator polynomial(double exponent) {
    return new Polynomial(exponent);
  }

  /** See {@link EpsilonCalculator#linear()}. */
  record Linear() implements EpsilonCalculator {
    @Override
    public double valueOf(double averageLatencyMillis) {
      return 1.0 / averageLatencyMillis;
    }
  }

  /** See {@link EpsilonCalculator#logarithmic()}. */
  record Logarithmic() implements EpsilonCalculator {
    @Override
    public double valueOf(double averageLatencyMillis) {
      return 1.0 / Math.log1p(averageLatencyMillis);
    }
  }

  /** See {@link EpsilonCalculator#polynomial(double)}. */
  record Polynomial(double exponent) implements EpsilonCalculator {
    public Polynomial {
      if (!(exponent > 0) || Double.isInfinite(exponent)) {
        throw new IllegalArgumentException("exponent must be positive and finite: " + exponent);
      }
    }

    @Override
    public double valueOf(double averageLatencyMillis) {
      return 1.0 / Math.pow(averageLatencyMillis, exponent);
    }
  }
}
