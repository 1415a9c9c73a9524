package dev.tether.zookeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * Real ZooKeeper servers in the test JVM that listen on 127.0.0.1 only (client, quorum and
 * election ports; no admin server), with a 200 ms tick so sessions of a second or two are allowed
 * and an ensemble elects a new leader in well under a second.
 */
final class LoopbackZooKeeper {
  private static final String LOOPBACK = "127.0.0.1";
  private static final int TICK_MILLIS = 200;

  private LoopbackZooKeeper() {}

  static TestingServer server() {
    try {
      return new TestingServer(spec(1), true);
    } catch (Exception e) {
      throw new IllegalStateException("cannot start ZooKeeper", e);
    }
  }

  static TestingCluster cluster(int members) {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int id = 1; id <= members; id++) {
      specs.add(spec(id));
    }
    TestingCluster cluster = new TestingCluster(specs);
    try {
      cluster.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot start a ZooKeeper ensemble", e);
    }
    return cluster;
  }

  private static InstanceSpec spec(int serverId) {
    Map<String, Object> settings = Map.of(
        "clientPortAddress", LOOPBACK,
        // Unknown keys become "zookeeper."-prefixed system properties: this one turns off the admin HTTP server.
        "admin.enableServer", "false",
        "maxSessionTimeout", "30000");
    return new InstanceSpec(null, freePort(), freePort(), freePort(), true, serverId, TICK_MILLIS, 0, settings, LOOPBACK);
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
