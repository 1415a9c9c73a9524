package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A built server reads the settings of its build, not the builder it came from. */
class TetherServerBuilderTest {
  private static final RawService ECHO = (operation, payload, context) -> payload;

  @Test
  void changingTheBuilderAfterBuildDoesNotChangeTheServer() {
    TetherServer.Builder builder = TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p 0")
        .service("echo", ECHO)
        .version("1.0.0")
        .topology(new Topology("tcp -h 127.0.0.1 -p 7000", List.of()));
    try (TetherServer server = builder.build()) {
      builder.endpoints("tcp -h 127.0.0.1 -p 0")
          .service("other", ECHO)
          .version("2.0.0")
          .topology(null)
          .property("tether.server.maxConnections", "not a number");
      server.start();

      assertThat(server.serviceNames()).containsExactly("echo");
      assertThat(server.version()).isEqualTo("1.0.0");
      assertThat(server.endpoints()).hasSize(1);
      assertThat(server.topology().primary()).isEqualTo("tcp -h 127.0.0.1 -p 7000");
      try (Tether tether = Tether.create()) {
        assertThat(tether.proxy(server.proxyString("echo")).invoke("echo", new byte[] {7})).containsExactly(7);
      }
    }
  }

  @Test
  void aBuilderBuildsAgainWithWhatItHoldsNow() {
    TetherServer.Builder builder = TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0").service("echo", ECHO);
    try (TetherServer first = builder.build()) {
      builder.service("other", ECHO).version("2.0.0");
      try (TetherServer second = builder.build()) {
        assertThat(first.serviceNames()).containsExactly("echo");
        assertThat(second.serviceNames()).containsExactly("echo", "other");
        assertThat(second.version()).isEqualTo("2.0.0");
      }
    }
  }

  @Test
  void aMalformedServerPropertyFailsTheBuild() {
    TetherServer.Builder builder = TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p 0")
        .property("tether.server.maxConnections", "many");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tether.server.maxConnections");
  }

  @Test
  void aNegativeMaxConnectionAgeFailsTheBuildNamingItsKey() {
    TetherServer.Builder builder = TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p 0")
        .maxConnectionAge(java.time.Duration.ofSeconds(-1));

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tether.server.maxConnectionAge");
  }

  @Test
  void connectionsNeverAgeUnlessTheServerSaysSo() {
    try (TetherServer server = TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0").build()) {
      assertThat(server.status().aged()).isZero();
    }
    assertThat(ServerProperties.parse(new dev.tether.internal.TetherProperties()).maxConnectionAge()).isZero();
    assertThat(ServerProperties.parse(new dev.tether.internal.TetherProperties()).maxConnectionAgeGrace()).isZero();
  }
}
