package dev.tether.cli.demo;

import dev.tether.cli.kv.DemoServer;
import dev.tether.spi.Discovery;
import dev.tether.zookeeper.LoopbackZooKeeper;
import dev.tether.zookeeper.Registration;
import dev.tether.zookeeper.ZooKeeperRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.test.TestingServer;

/**
 * The demo on ZooKeeper: every server the cluster starts is registered, the client finds them
 * through a discovery, and a graceful stop withdraws a server before it drains. "embedded" runs a
 * real ZooKeeper in this process on 127.0.0.1, so nothing needs to be installed.
 */
public final class DemoRegistry implements ServerLifecycle, AutoCloseable {
  /** The --zookeeper value that asks for an in-process ZooKeeper. */
  public static final String EMBEDDED = "embedded";

  private final TestingServer embedded;
  private final String connectString;
  private final ZooKeeperRegistry registry;
  private final Map<DemoServer, Registration> registrations = new ConcurrentHashMap<>();

  private DemoRegistry(TestingServer embedded, String connectString) {
    this.embedded = embedded;
    this.connectString = connectString;
    this.registry =
        ZooKeeperRegistry.builder(connectString).sessionTimeout(Duration.ofSeconds(10)).build();
  }

  /** {@code zookeeper} is "embedded" or a connect string ("host:port[,host:port]"). */
  public static DemoRegistry start(String zookeeper) {
    if (EMBEDDED.equals(zookeeper)) {
      TestingServer server = LoopbackZooKeeper.server();
      return new DemoRegistry(server, server.getConnectString());
    }
    return new DemoRegistry(null, zookeeper);
  }

  /** Where ZooKeeper is, for the report. */
  public String describe() {
    return (embedded == null ? "ZooKeeper at " : "embedded ZooKeeper at ") + connectString;
  }

  /** The live view of a service's servers. */
  public Discovery discovery(String service) {
    return registry.discovery(service);
  }

  @Override
  public void started(DemoServer server) {
    registrations.put(server, registry.register(server.server()));
  }

  /**
   * A killed process's session would end and take its nodes along; here the process lives on, so
   * withdraw.
   */
  @Override
  public void closedAbruptly(DemoServer server) {
    Registration r = registrations.remove(server);
    if (r != null) {
      r.withdraw();
    }
  }

  @Override
  public void close() {
    registry.close();
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
