package dev.tether.spring;

import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.micrometer.TetherMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.DisposableBean;

/**
 * Binds the runtime's and the server's meters to the application's {@link MeterRegistry}, and
 * removes them when the context closes.
 */
public final class TetherMeterBinding implements DisposableBean {
  private final List<TetherMetrics> bound = new ArrayList<>(2);

  TetherMeterBinding(MeterRegistry registry, Tether tether, TetherServer server) {
    bound.add(TetherMetrics.bind(tether, registry));
    if (server != null) {
      bound.add(TetherMetrics.bind(server, registry));
    }
  }

  @Override
  public void destroy() {
    bound.forEach(TetherMetrics::close);
    bound.clear();
  }
}
