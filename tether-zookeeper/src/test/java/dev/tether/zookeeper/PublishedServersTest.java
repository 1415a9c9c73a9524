package dev.tether.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Endpoint;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rule of what a discovery publishes, row by row, without ZooKeeper. */
class PublishedServersTest {
  private static final RegisteredServer A = server("a", 7001, "1.0");
  private static final RegisteredServer B = server("b", 7002, "2.0");
  private static final List<Endpoint> ONLY_A = List.of(Endpoint.parse("tcp -h 127.0.0.1 -p 7001"));

  private static RegisteredServer server(String id, int port, String version) {
    return new RegisteredServer(id, List.of("tcp -h 127.0.0.1 -p " + port), version, 1);
  }

  @Test
  void followsTheRegistryWhileItIsReachable() {
    assertThat(PublishedServers.next(ONLY_A, List.of(B, A), true, VersionRange.ANY))
        .containsExactly(
            Endpoint.parse("tcp -h 127.0.0.1 -p 7001"), Endpoint.parse("tcp -h 127.0.0.1 -p 7002"));
  }

  @Test
  void keepsTheLastListWhileTheRegistryIsUnreachable() {
    assertThat(PublishedServers.next(ONLY_A, List.of(B), false, VersionRange.ANY)).isSameAs(ONLY_A);
    assertThat(PublishedServers.next(ONLY_A, List.of(), false, VersionRange.ANY)).isSameAs(ONLY_A);
  }

  @Test
  void neverReplacesAKnownListWithAnEmptyOne() {
    assertThat(PublishedServers.next(ONLY_A, List.of(), true, VersionRange.ANY)).isSameAs(ONLY_A);
    assertThat(PublishedServers.next(ONLY_A, List.of(B), true, VersionRange.parse("[1.0,2.0)")))
        .isSameAs(ONLY_A);
  }

  @Test
  void keepsTheSameListObjectWhenNothingChanged() {
    assertThat(PublishedServers.next(ONLY_A, List.of(A), true, VersionRange.ANY)).isSameAs(ONLY_A);
  }

  @Test
  void dropsServersOutsideTheVersionRange() {
    assertThat(PublishedServers.next(List.of(), List.of(A, B), true, VersionRange.parse("[2.0,)")))
        .containsExactly(Endpoint.parse("tcp -h 127.0.0.1 -p 7002"));
  }

  @Test
  void startsEmptyWhenTheRegistryHoldsNothing() {
    assertThat(PublishedServers.next(List.of(), List.of(), true, VersionRange.ANY)).isEmpty();
  }
}
