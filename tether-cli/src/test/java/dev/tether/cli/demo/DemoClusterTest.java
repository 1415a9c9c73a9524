package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.Tether;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValue;
import dev.tether.cli.kv.KeyValueStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class DemoClusterTest {
  private final List<String> events = new ArrayList<>();
  private final Timeline timeline = new Timeline(System::nanoTime, e -> events.add(e.what()));

  @Test
  void aRestartedServerListensOnTheSamePortAndKeepsCountingWhereTheOldOneStopped() {
    KeyValueStore store = new KeyValueStore();
    try (DemoCluster cluster = DemoCluster.start(3, store, timeline);
        Tether tether = Tether.create()) {
      DemoCluster.Node node = cluster.nodes().get(0);
      int port = node.port();
      String proxy = cluster.proxyString(DemoServer.KV);
      KeyValue first = tether.proxy("kv:tcp -h 127.0.0.1 -p " + port).as(KeyValue.class);
      first.increment("c");
      first.increment("c");

      cluster.stopAbruptly("server-1");
      cluster.restart("server-1");
      // A dial that met the stopped port backs off; waiting for ready rides to the next attempt.
      tether
          .proxy("kv:tcp -h 127.0.0.1 -p " + port)
          .withWaitForReady(true)
          .as(KeyValue.class)
          .increment("c");

      assertThat(node.server().endpoints().get(0).port()).isEqualTo(port);
      assertThat(cluster.proxyString(DemoServer.KV)).isEqualTo(proxy);
      assertThat(node.incrementsExecuted()).isEqualTo(3);
      assertThat(node.served()).isEqualTo(3);
      assertThat(node.state).isEqualTo(DemoCluster.NodeState.RUNNING);
      assertThat(node.restartedAt).isNotNull();
      assertThat(events)
          .contains("server-1 restarted on the same port (tcp -h 127.0.0.1 -p " + port + ")");
    }
  }

  @Test
  void aRunningServerCannotBeRestarted() {
    try (DemoCluster cluster = DemoCluster.start(2, new KeyValueStore(), timeline)) {
      assertThatThrownBy(() -> cluster.restart("server-1"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("server-1 is running");
    }
  }

  @Test
  void abruptKillsNeverHaveTwoServersDownAndEndWithAllRunningOnTheirPorts() {
    assertStepsKeepTwoOfThreeUp(Scenarios.ABRUPT_KILLS);
  }

  @Test
  void aRollingRestartNeverHasTwoServersDownAndEndsWithAllRunningOnTheirPorts() {
    assertStepsKeepTwoOfThreeUp(Scenarios.ROLLING_RESTART);
  }

  /** Performs every step back to back, without load, checking the cluster after each. */
  private void assertStepsKeepTwoOfThreeUp(Scenario scenario) {
    try (DemoCluster cluster = DemoCluster.start(3, new KeyValueStore(), timeline)) {
      Map<String, Integer> ports =
          cluster.nodes().stream()
              .collect(Collectors.toMap(DemoCluster.Node::name, DemoCluster.Node::port));
      for (Scenario.Step step : scenario.steps()) {
        step.action().perform(cluster);
        assertThat(cluster.nodes().stream().filter(n -> n.state != DemoCluster.NodeState.RUNNING))
            .as("servers down after a step")
            .hasSizeLessThanOrEqualTo(1);
      }
      assertThat(cluster.nodes())
          .allSatisfy(
              n -> {
                assertThat(n.state).isEqualTo(DemoCluster.NodeState.RUNNING);
                assertThat(n.restartedAt).as("%s restarted", n.name()).isNotNull();
                assertThat(n.server().endpoints().get(0).port()).isEqualTo(ports.get(n.name()));
              });
      assertThat(events.stream().filter(e -> e.contains("restarted on the same port"))).hasSize(3);
    }
  }

  @Test
  void aGracefulRestartDrainsBeforeTheNewServerStarts() {
    try (DemoCluster cluster = DemoCluster.start(2, new KeyValueStore(), timeline)) {
      cluster.restartGracefully("server-2", Duration.ofSeconds(1));

      assertThat(events)
          .containsSubsequence(
              "server-2 shutting down gracefully (GOAWAY, drain up to 1 s)",
              "server-2 stopped gracefully");
      assertThat(events.get(events.size() - 1)).startsWith("server-2 restarted on the same port");
    }
  }
}
