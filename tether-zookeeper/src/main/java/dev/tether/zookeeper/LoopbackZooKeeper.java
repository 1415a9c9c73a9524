package dev.tether.zookeeper;

import dev.tether.testing.StablePorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * Real ZooKeeper servers inside this JVM, listening on 127.0.0.1 only (client, quorum and election
 * ports; no admin server), for demos and tests. A 200 ms tick allows sessions from 0.4 s to 30 s
 * and lets an ensemble elect a new leader in well under a second. Needs curator-test and
 * tether-core's test fixtures (the testkit brings them) on the class path.
 */
public final class LoopbackZooKeeper {
  private static final String LOOPBACK = "127.0.0.1";
  private static final int TICK_MILLIS = 200;

  private LoopbackZooKeeper() {}

  /**
   * The servers' tick: a session expires on the first tick boundary after its timeout, so up to a
   * tick late.
   */
  static Duration tick() {
    return Duration.ofMillis(TICK_MILLIS);
  }

  /** A started standalone server; {@code getConnectString()} says where. */
  public static TestingServer server() {
    try {
      return new TestingServer(spec(1), true);
    } catch (Exception e) {
      throw new IllegalStateException("cannot start ZooKeeper", e);
    }
  }

  /** A started ensemble of {@code members} servers. */
  public static TestingCluster cluster(int members) {
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
    Map<String, Object> settings =
        Map.of(
            "clientPortAddress", LOOPBACK,
            // Unknown keys become "zookeeper."-prefixed system properties: this one turns off the
            // admin HTTP server.
            "admin.enableServer", "false",
            "maxSessionTimeout", "30000");
    // Below the ephemeral range: a member killed and restarted finds its ports still free.
    return new InstanceSpec(
        null,
        StablePorts.unusedPort(),
        StablePorts.unusedPort(),
        StablePorts.unusedPort(),
        true,
        serverId,
        TICK_MILLIS,
        0,
        settings,
        LOOPBACK);
  }
}
