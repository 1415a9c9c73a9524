package dev.tether.spring;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * A {@link Tether} from the {@code tether.*} properties; with {@code tether.server.endpoints}, a
 * started {@link TetherServer} for every {@link TetherService} bean that drains on close; proxies
 * from {@code tether.clients.*}; a health indicator with the actuator; meters with Micrometer.
 */
@AutoConfiguration(
    afterName = {
      // Boot's own registries, when the actuator makes them, exist before the binding asks for one.
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@EnableConfigurationProperties(TetherBootProperties.class)
@Import(TetherClientsRegistrar.class)
public class TetherAutoConfiguration {
  /** Spring's default for {@code spring.lifecycle.timeout-per-shutdown-phase}. */
  static final Duration DEFAULT_SHUTDOWN_PHASE_TIMEOUT = Duration.ofSeconds(30);

  /** Closed after the server drained: Spring destroys beans once every lifecycle phase stopped. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Tether tether(Environment environment, ObjectProvider<TetherListener> listeners) {
    Tether.Builder builder = Tether.builder().properties(TetherPropertySource.of(environment));
    listeners.orderedStream().forEach(builder::listener);
    return builder.build();
  }

  /** Built here, started by {@link TetherServerLifecycle} once the context is refreshed. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "tether.server", name = "endpoints")
  public TetherServer tetherServer(
      TetherBootProperties properties,
      Environment environment,
      ApplicationContext context,
      ObjectProvider<TetherListener> listeners) {
    TetherServer.Builder builder =
        TetherServer.builder()
            .endpoints(properties.getServer().getEndpoints())
            .properties(TetherPropertySource.of(environment));
    listeners.orderedStream().forEach(builder::listener);
    AnnotatedServices.register(builder, context);
    return builder.build();
  }

  @Bean
  @ConditionalOnProperty(prefix = "tether.server", name = "endpoints")
  public TetherServerLifecycle tetherServerLifecycle(TetherServer server, Environment environment) {
    Duration grace =
        Binder.get(environment)
            .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
            .orElse(DEFAULT_SHUTDOWN_PHASE_TIMEOUT);
    return new TetherServerLifecycle(server, grace);
  }

  /** Present when the application has the actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class HealthConfiguration {
    /** Boot names the contributor after the bean, less "HealthIndicator": {@code tether}. */
    @Bean
    @ConditionalOnMissingBean(name = "tetherHealthIndicator")
    TetherHealthIndicator tetherHealthIndicator(
        Tether tether, ObjectProvider<TetherServer> server, Environment environment) {
      Map<String, Proxy> balanced = new LinkedHashMap<>();
      TetherClients.of(environment)
          .byBeanName()
          .forEach(
              (bean, client) -> {
                if (client.getLoadBalancing() != null) {
                  balanced.put(bean, TetherClients.proxy(tether, bean, client));
                }
              });
      return new TetherHealthIndicator(tether, server.getIfAvailable(), balanced);
    }
  }

  /**
   * Present when the application has one {@link MeterRegistry} (its own, or the one Boot makes).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  @ConditionalOnSingleCandidate(MeterRegistry.class)
  static class MetricsConfiguration {
    @Bean
    TetherMeterBinding tetherMeterBinding(
        MeterRegistry registry, Tether tether, ObjectProvider<TetherServer> server) {
      return new TetherMeterBinding(registry, tether, server.getIfAvailable());
    }
  }
}
