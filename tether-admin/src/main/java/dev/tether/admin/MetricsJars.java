package dev.tether.admin;

/**
 * Whether {@code /metrics} can be served, and why not. It names no Micrometer type, so it loads on
 * any class path; {@link PrometheusText} cannot even be verified without the Prometheus registry
 * (its registry is passed where a {@code MeterRegistry} is expected), so it is touched only when
 * {@link #missing()} is null.
 */
final class MetricsJars {
  private static final String[][] REQUIRED = {
    {"dev.tether.micrometer.TetherMetrics", "tether-micrometer"},
    {"io.micrometer.core.instrument.MeterRegistry", "micrometer-core"},
    {"io.micrometer.prometheusmetrics.PrometheusMeterRegistry", "micrometer-registry-prometheus"},
  };

  private MetricsJars() {}

  /**
   * The artifacts {@code /metrics} needs that this class path lacks, or null when none is missing.
   */
  static String missing() {
    ClassLoader loader = MetricsJars.class.getClassLoader();
    StringBuilder absent = new StringBuilder();
    for (String[] required : REQUIRED) {
      if (!loadable(required[0], loader)) {
        absent.append(absent.length() == 0 ? "" : ", ").append(required[1]);
      }
    }
    return absent.length() == 0 ? null : absent.toString();
  }

  private static boolean loadable(String className, ClassLoader loader) {
    try {
      Class.forName(className, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError absent) {
      return false;
    }
  }
}
