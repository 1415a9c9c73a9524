package dev.tether.spring;

import java.util.Map;
import java.util.Properties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The {@code tether.*} settings of the Spring environment as core's builders take them: every key
 * under {@code tether} with its value, except the starter's own {@code tether.clients.*}. Core
 * parses and checks them, so a bad value fails the context with core's message.
 */
final class TetherPropertySource {
  private static final String PREFIX = "tether";
  private static final String CLIENTS = "clients.";

  private TetherPropertySource() {}

  /** Every {@code tether.*} key of {@code environment} core reads, with its value. */
  static Properties of(Environment environment) {
    Map<String, String> bound =
        Binder.get(environment)
            .bind(PREFIX, Bindable.mapOf(String.class, String.class))
            .orElse(Map.of());
    Properties out = new Properties();
    bound.forEach(
        (key, value) -> {
          if (!key.startsWith(CLIENTS)) {
            out.setProperty(PREFIX + "." + key, value);
          }
        });
    return out;
  }
}
