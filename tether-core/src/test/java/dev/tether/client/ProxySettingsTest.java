package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import dev.tether.InvocationMode;
import dev.tether.LoadBalancing;
import dev.tether.spi.ClientWireProtocol;
import dev.tether.spi.StaticDiscovery;
import io.netty.channel.Channel;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProxySettingsTest {
  @Test
  void everySettingSurvivesALaterChangeOfAnotherOne() throws Exception {
    ProxySettings set =
        ProxySettings.of(
                "svc", InvocationMode.ONEWAY, true, List.of(Endpoint.parse("tcp -h a -p 1")))
            .with(
                c ->
                    c.source(StaticDiscovery.of("tcp -h b -p 2"))
                        .preferSecure(true)
                        .connectionId("g")
                        .connectionCached(false)
                        .selection(EndpointSelection.ORDERED)
                        .invocationTimeout(Duration.ofSeconds(3))
                        .compress(true)
                        .loadBalancing(LoadBalancing.RANDOM)
                        .waitForReady(true)
                        .session("s")
                        .maxRerouteRetries(7)
                        .rerouteRetryInterval(Duration.ofMillis(5))
                        .serverVersion(VersionRange.parse("[1.0,2.0)"))
                        .attemptTimeout(Duration.ofMillis(50))
                        .hedging(Duration.ofMillis(10), 3)
                        .metadata("token", "t")
                        .wireProtocol(new NamedProtocol()));

    ProxySettings copy = set.with(c -> c.identity("other"));

    for (Field f : ProxySettings.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) || f.getName().equals("identity")) {
        continue;
      }
      f.setAccessible(true);
      assertThat(f.get(copy)).as(f.getName()).isEqualTo(f.get(set));
      assertThat(f.get(copy))
          .as(f.getName() + " was set away from its default")
          .isNotEqualTo(f.get(ProxySettings.of("svc", InvocationMode.TWOWAY, false, List.of())));
    }
  }

  /** A protocol that is only a name: the settings carry it, nothing here opens a channel. */
  private static final class NamedProtocol implements ClientWireProtocol {
    @Override
    public String name() {
      return "named";
    }

    @Override
    public Link open(Channel channel, Connection connection) {
      throw new UnsupportedOperationException("never opened");
    }
  }

  @Test
  void anEndpointWithDashZMakesCallsAskForCompression() {
    ProxySettings zipped =
        ProxySettings.of(
            "svc",
            InvocationMode.TWOWAY,
            false,
            List.of(Endpoint.parse("tcp -h a -p 1"), Endpoint.parse("tcp -h b -p 2 -z")));

    assertThat(zipped.compress()).isTrue();
    assertThat(zipped.with(c -> c.identity("other")).compress()).isTrue();
    assertThat(
            ProxySettings.of(
                    "svc", InvocationMode.TWOWAY, false, List.of(Endpoint.parse("tcp -h a -p 1")))
                .compress())
        .isFalse();
  }

  @Test
  void withCompressionOverridesTheEndpointsDashZEitherWay() {
    ProxySettings zipped =
        ProxySettings.of(
            "svc", InvocationMode.TWOWAY, false, List.of(Endpoint.parse("tcp -h b -p 2 -z")));
    ProxySettings plain =
        ProxySettings.of(
            "svc", InvocationMode.TWOWAY, false, List.of(Endpoint.parse("tcp -h a -p 1")));

    assertThat(zipped.with(c -> c.compress(false)).compress()).isFalse();
    assertThat(plain.with(c -> c.compress(true)).compress()).isTrue();
    // A later change of endpoints keeps the proxy's own choice.
    assertThat(
            zipped
                .with(c -> c.compress(false))
                .withEndpoints(List.of(Endpoint.parse("tcp -h c -p 3 -z")))
                .compress())
        .isFalse();
  }
}
