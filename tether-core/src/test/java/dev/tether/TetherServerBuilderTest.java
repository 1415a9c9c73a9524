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
    TetherServer.Builder builder =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", ECHO)
            .version("1.0.0")
            .topology(new Topology("tcp -h 127.0.0.1 -p 7000", List.of()));
    try (TetherServer server = builder.build()) {
      builder
          .endpoints("tcp -h 127.0.0.1 -p 0")
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
        assertThat(tether.proxy(server.proxyString("echo")).invoke("echo", new byte[] {7}))
            .containsExactly(7);
      }
    }
  }

  @Test
  void serviceNamesListStreamServicesTooEachOnce() {
    try (TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", ECHO)
            .streamService("feed", (operation, request, inbound, ctx) -> new NumberedItems(1))
            .streamService("echo", (operation, request, inbound, ctx) -> new NumberedItems(1))
            .build()) {
      assertThat(server.serviceNames())
          .containsExactly("echo", "feed"); // what a registry announces
    }
  }

  @Test
  void aBuilderBuildsAgainWithWhatItHoldsNow() {
    TetherServer.Builder builder =
        TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0").service("echo", ECHO);
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
    TetherServer.Builder builder =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .property("tether.server.maxConnections", "many");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tether.server.maxConnections");
  }

  @Test
  void virtualThreadsBeforeJava21FailTheBuildNamingTheRunningJavaAndTheOneNeeded() {
    TetherServer.Builder builder =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", ECHO)
            .executionMode(ExecutionMode.VIRTUAL_THREADS);

    if (Runtime.version().feature() < 21) {
      assertThatThrownBy(builder::build)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("VIRTUAL_THREADS")
          .hasMessageContaining("needs Java 21 or later")
          .hasMessageContaining("this JVM runs Java " + Runtime.version());
    } else {
      builder.build().close(); // tether-virtual-threads-it runs such servers on Java 25
    }
  }

  @Test
  void theExecutionModePropertyChoosesWhereServiceCodeRuns() {
    RawService threadName =
        (operation, payload, context) ->
            Thread.currentThread().getName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    TetherServer.Builder builder =
        TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0").service("where", threadName);
    try (TetherServer pooled = builder.build().start();
        TetherServer direct =
            builder.property("tether.server.executionMode", "direct").build().start();
        Tether tether = Tether.create()) {
      String onPool =
          new String(
              tether.proxy(pooled.proxyString("where")).invoke("where", new byte[0]),
              java.nio.charset.StandardCharsets.UTF_8);
      String onLoop =
          new String(
              tether.proxy(direct.proxyString("where")).invoke("where", new byte[0]),
              java.nio.charset.StandardCharsets.UTF_8);

      assertThat(onPool).startsWith("tether-service");
      assertThat(onLoop).doesNotStartWith("tether-service").startsWith("tether-server");
    }
  }

  @Test
  void anUnknownExecutionModeFailsTheBuildListingTheModes() {
    TetherServer.Builder builder =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .property("tether.server.executionMode", "green-threads");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tether.server.executionMode")
        .hasMessageContaining("VIRTUAL_THREADS")
        .hasMessageContaining("green-threads");
  }

  @Test
  void aNegativeMaxConnectionAgeFailsTheBuildNamingItsKey() {
    TetherServer.Builder builder =
        TetherServer.builder()
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
    assertThat(
            ServerProperties.parse(new dev.tether.internal.TetherProperties()).maxConnectionAge())
        .isZero();
    assertThat(
            ServerProperties.parse(new dev.tether.internal.TetherProperties())
                .maxConnectionAgeGrace())
        .isZero();
  }
}
