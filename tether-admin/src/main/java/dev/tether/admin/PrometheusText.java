package dev.tether.admin;

import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.micrometer.TetherMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The {@code /metrics} text: a Prometheus registry with {@link TetherMetrics} bound to every
 * observed runtime and server. Only this class names Micrometer, so the admin loads it only when
 * the optional jars are present (see {@link MetricsJars#missing()}).
 */
final class PrometheusText implements Supplier<String>, AutoCloseable {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<TetherMetrics> bindings = new ArrayList<>();

  PrometheusText(List<Tether> clients, List<TetherServer> servers) {
    for (Tether t : clients) {
      bindings.add(TetherMetrics.bind(t, registry));
    }
    for (TetherServer s : servers) {
      bindings.add(TetherMetrics.bind(s, registry));
    }
  }

  @Override
  public String get() {
    return registry.scrape();
  }

  @Override
  public void close() {
    for (TetherMetrics m : bindings) {
      m.close();
    }
    registry.close();
  }
}
