package dev.tether.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StablePortsTest {
  @Test
  void unusedPortLiesBelowTheEphemeralRangeAndCanBeListenedOn() throws Exception {
    int port = StablePorts.unusedPort();
    assertThat(port).isBetween(1024, StablePorts.ephemeralLow() - 1);
    try (ServerSocket later = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(later.getLocalPort()).isEqualTo(port);
    }
  }

  @Test
  void triesAnotherPortWhenOneIsTaken() {
    List<Integer> tried = new ArrayList<>();
    int bound =
        StablePorts.listenOnOne(
            port -> {
              tried.add(port);
              if (tried.size() < 3) {
                throw new IllegalStateException("address in use: " + port);
              }
              return port;
            });

    assertThat(tried)
        .hasSize(3)
        .doesNotHaveDuplicates()
        .allSatisfy(port -> assertThat(port).isBetween(1024, StablePorts.ephemeralLow() - 1));
    assertThat(bound).isEqualTo(tried.get(2));
  }

  @Test
  void namesTheLastFailureWhenNoPortCanBeBound() {
    assertThatThrownBy(
            () ->
                StablePorts.listenOnOne(
                    port -> {
                      throw new IllegalStateException("address in use: " + port);
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("address in use: ");
  }
}
