package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.testing.StablePorts;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class FaultProxyPortTest {
  @Test
  void faultProxyListensBelowTheEphemeralRangeSoNoOutgoingConnectionTakesItsPort() {
    try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", 9))) {
      assertThat(proxy.port()).isBetween(1024, StablePorts.ephemeralLow() - 1);
      proxy.stop();
      proxy.restart();
      assertThat(proxy.port()).isLessThan(StablePorts.ephemeralLow());
    }
  }
}
