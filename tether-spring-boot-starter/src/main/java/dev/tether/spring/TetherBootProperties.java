package dev.tether.spring;

import dev.tether.LoadBalancing;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The keys the starter itself reads under {@code tether}: the server's endpoints and the client
 * proxies to expose as beans. Every other {@code tether.*} key goes to the runtime and the server
 * unchanged, as {@code Tether.builder().property(key, value)} would take it.
 */
@ConfigurationProperties(prefix = "tether")
public class TetherBootProperties {
  private final Server server = new Server();

  /**
   * Proxies to expose as beans, by bean name: each names its proxy string and service interface.
   */
  private final Map<String, Client> clients = new LinkedHashMap<>();

  public Server getServer() {
    return server;
  }

  /** Proxies to expose as beans, by bean name. */
  public Map<String, Client> getClients() {
    return clients;
  }

  /** The server that serves every {@code @TetherService} bean. */
  public static class Server {
    /**
     * Endpoints to listen on, in proxy grammar, e.g. "tcp -h 127.0.0.1 -p 7000:udp -h 127.0.0.1 -p
     * 7000"; without them no server is started.
     */
    private String endpoints;

    public String getEndpoints() {
      return endpoints;
    }

    public void setEndpoints(String endpoints) {
      this.endpoints = endpoints;
    }
  }

  /** One proxy bean: where it calls and the interface it is typed by. */
  public static class Client {
    /** The proxy in proxy grammar, e.g. "echo:tcp -h 10.0.0.1 -p 7000:tcp -h 10.0.0.2 -p 7000". */
    private String proxy;

    /** The fully qualified name of the service interface the bean implements. */
    private String serviceInterface;

    /** Balances calls over the proxy's endpoints as one node group; unset means no balancing. */
    private LoadBalancing loadBalancing;

    public String getProxy() {
      return proxy;
    }

    public void setProxy(String proxy) {
      this.proxy = proxy;
    }

    /** The fully qualified name of the service interface the bean implements. */
    public String getInterface() {
      return serviceInterface;
    }

    public void setInterface(String serviceInterface) {
      this.serviceInterface = serviceInterface;
    }

    public LoadBalancing getLoadBalancing() {
      return loadBalancing;
    }

    public void setLoadBalancing(LoadBalancing loadBalancing) {
      this.loadBalancing = loadBalancing;
    }
  }
}
