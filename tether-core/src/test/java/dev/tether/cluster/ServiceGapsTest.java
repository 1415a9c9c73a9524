package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Endpoint;
import dev.tether.InvocationMode;
import dev.tether.client.ProxySettings;
import dev.tether.client.RequestChannel;
import dev.tether.client.ScriptedChannel;
import dev.tether.client.ScriptedSupervisors;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node that answered it lacks a service, in a node group over scripted connections on the fake
 * clock: skipped for that service only, while its connection is the one that answered and for at
 * most {@link ServiceGaps#SKIP}, and picked all the same when every node lacks it.
 */
class ServiceGapsTest {
  private final FakeNodeHost host = new FakeNodeHost();
  private final ProxySettings settings =
      ProxySettings.of(
          "svc",
          InvocationMode.TWOWAY,
          false,
          Endpoint.parseList("tcp -h 127.0.0.1 -p 7001:tcp -h 127.0.0.1 -p 7002"));
  private final NodeGroup group = new NodeGroup(host, settings, new RoundRobinSelector());

  @BeforeEach
  void bothConnected() {
    group.connectAny(settings);
    host.connections.lastTo(7001).connects(null);
    host.connections.lastTo(7002).connects(null);
  }

  private void lacks(int port, String service) {
    host.control.execute(() -> group.onNotFound(host.connections.lastTo(port).key(), service));
  }

  /** The ports ten calls of {@code s} go to. */
  private Set<Integer> portsOfTenCalls(ProxySettings s) {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      RequestChannel c = group.route(s, Set.of(), 0).join();
      ports.add(((InetSocketAddress) c.remoteAddress()).getPort());
    }
    return ports;
  }

  @Test
  void nodeThatLacksAServiceIsSkippedForThatServiceOnly() {
    lacks(7001, "svc");

    assertThat(portsOfTenCalls(settings)).containsExactly(7002);
    assertThat(portsOfTenCalls(settings.with(c -> c.identity("other"))))
        .containsExactlyInAnyOrder(7001, 7002);
  }

  @Test
  void skippedNodeTakesTheServiceAgainOnceTheSkipEnds() {
    lacks(7001, "svc");
    host.clock.forward(ServiceGaps.SKIP.minus(Duration.ofMillis(1)));
    assertThat(portsOfTenCalls(settings)).containsExactly(7002);

    host.clock.forward(Duration.ofMillis(1));
    assertThat(portsOfTenCalls(settings)).containsExactlyInAnyOrder(7001, 7002);
  }

  @Test
  void skippedNodeTakesTheServiceAgainOnANewConnection() { // redeployed: it restarted
    ScriptedChannel answered = host.connections.lastTo(7001);
    lacks(7001, "svc");

    ScriptedSupervisors.closed(host.supervisorOf(7001), answered, true);
    host.connections.lastTo(7001).connects(null);

    assertThat(portsOfTenCalls(settings)).containsExactlyInAnyOrder(7001, 7002);
  }

  @Test
  void whenEveryNodeLacksTheServiceTheyAreStillPicked() { // the call hears them and names them
    lacks(7001, "svc");
    lacks(7002, "svc");

    assertThat(portsOfTenCalls(settings)).containsExactlyInAnyOrder(7001, 7002);
  }
}
