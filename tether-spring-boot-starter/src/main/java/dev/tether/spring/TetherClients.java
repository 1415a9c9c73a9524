package dev.tether.spring;

import dev.tether.Proxy;
import dev.tether.Tether;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The client proxies configured under {@code tether.clients.<bean>}: read from the environment
 * before any bean exists (the registrar needs their types), and turned into proxies on a runtime.
 */
final class TetherClients {
  private final Map<String, TetherBootProperties.Client> clients;

  private TetherClients(Map<String, TetherBootProperties.Client> clients) {
    this.clients = clients;
  }

  static TetherClients of(Environment environment) {
    Map<String, TetherBootProperties.Client> bound =
        Binder.get(environment)
            .bind("tether.clients", Bindable.mapOf(String.class, TetherBootProperties.Client.class))
            .orElse(Map.of());
    return new TetherClients(new LinkedHashMap<>(bound));
  }

  Map<String, TetherBootProperties.Client> byBeanName() {
    return clients;
  }

  /**
   * The interface {@code tether.clients.<bean>.interface} names; fails with the key when unset or
   * unknown.
   */
  static Class<?> serviceInterface(
      String bean, TetherBootProperties.Client client, ClassLoader loader) {
    String name = client.getInterface();
    if (name == null || name.isBlank()) {
      throw new IllegalStateException(
          "tether.clients." + bean + ".interface is not set: name the service interface");
    }
    try {
      Class<?> type = ClassUtils.forName(name.trim(), loader);
      if (!type.isInterface()) {
        throw new IllegalStateException(
            "tether.clients." + bean + ".interface names a class, not an interface: " + name);
      }
      return type;
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalStateException(
          "tether.clients." + bean + ".interface names no loadable type: " + name, e);
    }
  }

  /** The untyped proxy for one client: its string, with load balancing when configured. */
  static Proxy proxy(Tether tether, String bean, TetherBootProperties.Client client) {
    if (client.getProxy() == null || client.getProxy().isBlank()) {
      throw new IllegalStateException(
          "tether.clients." + bean + ".proxy is not set: give the proxy string");
    }
    Proxy p = tether.proxy(client.getProxy());
    return client.getLoadBalancing() == null ? p : p.withLoadBalancing(client.getLoadBalancing());
  }
}
