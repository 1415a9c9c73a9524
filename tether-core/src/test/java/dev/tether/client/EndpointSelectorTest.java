package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import dev.tether.InvocationMode;
import dev.tether.NoEndpointException;
import dev.tether.ParsedProxy;
import dev.tether.Resolver;
import dev.tether.transport.TransportSet;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Endpoint selection's five steps, one behaviour per test, without sockets. */
class EndpointSelectorTest {
  private static TransportSet withTls;
  private static TransportSet withoutTls;

  @BeforeAll
  static void transports() throws SSLException {
    SslContext client = SslContextBuilder.forClient().build();
    withTls = new TransportSet("test", 1, true, client, null);
    withoutTls = new TransportSet("test", 1, true, null, null);
  }

  @AfterAll
  static void stop() {
    withTls.shutdown();
    withoutTls.shutdown();
  }

  private static final Resolver FAKE_DNS =
      host ->
          switch (host) {
            case "multi.test" -> List.of(addr("127.0.0.1"), addr("127.0.0.2"), addr("127.0.0.3"));
            case "one.test" -> List.of(addr("127.0.0.9"));
            default -> throw new UnknownHostException(host);
          };

  private static InetAddress addr(String ip) {
    try {
      return InetAddress.getByName(ip);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  private static EndpointSelector selector(TransportSet transports, String... properties) {
    Properties p = new Properties();
    for (int i = 0; i < properties.length; i += 2) {
      p.setProperty(properties[i], properties[i + 1]);
    }
    return new EndpointSelector(transports, FAKE_DNS, ClientConfig.from(p), new Random(42));
  }

  private static ProxySettings proxy(String text) {
    ParsedProxy parsed = ParsedProxy.parse(text);
    return ProxySettings.of(parsed.identity(), parsed.mode(), parsed.secure(), parsed.endpoints())
        .withSelection(EndpointSelection.ORDERED);
  }

  private static List<String> hostsAndTransports(List<Candidate> candidates) {
    return candidates.stream()
        .map(c -> c.endpoint().transport() + " " + c.endpoint().host())
        .toList();
  }

  @Test
  void unknownTransportsAreDropped() {
    List<Candidate> c =
        selector(withTls).select(proxy("s:quic -h 127.0.0.5 -p 1:tcp -h 127.0.0.1 -p 2"));
    assertThat(hostsAndTransports(c)).containsExactly("tcp 127.0.0.1");
  }

  @Test
  void sslIsDroppedWhenTlsIsNotConfigured() {
    assertThatThrownBy(() -> selector(withoutTls).select(proxy("s:ssl -h 127.0.0.1 -p 1")))
        .isInstanceOf(NoEndpointException.class)
        .hasMessageContaining("step 1");
  }

  @Test
  void twowayProxyWithOnlyUdpEndpointRaisesNoEndpoint() {
    assertThatThrownBy(() -> selector(withTls).select(proxy("s:udp -h 127.0.0.1 -p 1")))
        .isInstanceOf(NoEndpointException.class)
        .hasMessageContaining("step 2")
        .hasMessageContaining("TWOWAY");
  }

  @Test
  void datagramProxyKeepsOnlyDatagramEndpoints() {
    ProxySettings s =
        proxy("s:tcp -h 127.0.0.1 -p 1:udp -h 127.0.0.1 -p 2").withMode(InvocationMode.DATAGRAM);
    assertThat(hostsAndTransports(selector(withTls).select(s))).containsExactly("udp 127.0.0.1");
  }

  @Test
  void batchOnewayAndOnewayDropDatagramEndpoints() {
    for (InvocationMode mode : List.of(InvocationMode.ONEWAY, InvocationMode.BATCH_ONEWAY)) {
      ProxySettings s = proxy("s:udp -h 127.0.0.1 -p 2:tcp -h 127.0.0.1 -p 1").withMode(mode);
      assertThat(hostsAndTransports(selector(withTls).select(s))).containsExactly("tcp 127.0.0.1");
    }
  }

  @Test
  void multiHomedNameBecomesOneCandidatePerAddress() {
    List<Candidate> c = selector(withTls).select(proxy("s:tcp -h multi.test -p 7000"));
    assertThat(hostsAndTransports(c))
        .containsExactly("tcp 127.0.0.1", "tcp 127.0.0.2", "tcp 127.0.0.3");
    assertThat(c).allSatisfy(x -> assertThat(x.endpoint().port()).isEqualTo(7000));
  }

  @Test
  void literalEndpointsAreBuiltOnceAndReusedOnEverySelection() {
    EndpointSelector selector = selector(withTls);
    ProxySettings s = proxy("s:tcp -h 127.0.0.1 -p 1:tcp -h 127.0.0.2 -p 2");
    List<Candidate> first = selector.select(s);
    List<Candidate> second = selector.select(s);
    assertThat(second.get(0)).isSameAs(first.get(0));
    assertThat(second.get(1)).isSameAs(first.get(1));
  }

  @Test
  void namedEndpointsAreResolvedAgainOnEverySelection() {
    List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
    Resolver counting =
        host -> {
          asked.add(host);
          return FAKE_DNS.resolve(host);
        };
    EndpointSelector selector =
        new EndpointSelector(
            withTls, counting, ClientConfig.from(new Properties()), new Random(42));
    ProxySettings s = proxy("s:tcp -h one.test -p 1");
    selector.select(s);
    selector.select(s);
    assertThat(asked).containsExactly("one.test", "one.test");
  }

  @Test
  void unresolvableNameNamesStepThree() {
    assertThatThrownBy(() -> selector(withTls).select(proxy("s:tcp -h nowhere.test -p 1")))
        .isInstanceOf(NoEndpointException.class)
        .hasMessageContaining("step 3")
        .hasMessageContaining("nowhere.test");
  }

  @Test
  void orderedSelectionKeepsTheProxysOrder() {
    List<Candidate> c =
        selector(withTls)
            .select(proxy("s:tcp -h 127.0.0.3 -p 1:tcp -h 127.0.0.1 -p 1:tcp -h 127.0.0.2 -p 1"));
    assertThat(hostsAndTransports(c))
        .containsExactly("tcp 127.0.0.3", "tcp 127.0.0.1", "tcp 127.0.0.2");
  }

  @Test
  void randomSelectionShufflesWithTheInjectedRandom() {
    ProxySettings s =
        proxy(
                "s:tcp -h 127.0.0.1 -p 1:tcp -h 127.0.0.2 -p 1:tcp -h 127.0.0.3 -p 1:tcp -h 127.0.0.4 -p 1")
            .withSelection(EndpointSelection.RANDOM);
    EndpointSelector selector = selector(withTls);
    java.util.Set<List<String>> orders = new java.util.HashSet<>();
    for (int i = 0; i < 50; i++) {
      orders.add(hostsAndTransports(selector.select(s)));
    }
    assertThat(orders).hasSizeGreaterThan(5);
  }

  @Test
  void nonSecureEndpointsGoFirstByDefault() {
    List<Candidate> c =
        selector(withTls)
            .select(
                proxy(
                    "s:ssl -h 127.0.0.1 -p 1:tcp -h 127.0.0.2 -p 1:ssl -h 127.0.0.3 -p 1:tcp -h 127.0.0.4 -p 1"));
    assertThat(hostsAndTransports(c))
        .containsExactly("tcp 127.0.0.2", "tcp 127.0.0.4", "ssl 127.0.0.1", "ssl 127.0.0.3");
  }

  @Test
  void preferSecurePutsSecureEndpointsFirst() {
    ProxySettings s =
        proxy(
                "s:tcp -h 127.0.0.2 -p 1:ssl -h 127.0.0.1 -p 1:tcp -h 127.0.0.4 -p 1:ssl -h 127.0.0.3 -p 1")
            .withPreferSecure(true);
    assertThat(hostsAndTransports(selector(withTls).select(s)))
        .containsExactly("ssl 127.0.0.1", "ssl 127.0.0.3", "tcp 127.0.0.2", "tcp 127.0.0.4");
  }

  @Test
  void overrideSecureKeepsOnlySecureEndpoints() {
    List<Candidate> c =
        selector(withTls, "tether.override.secure", "true")
            .select(proxy("s:tcp -h 127.0.0.2 -p 1:ssl -h 127.0.0.1 -p 1"));
    assertThat(hostsAndTransports(c)).containsExactly("ssl 127.0.0.1");
  }

  @Test
  void overrideSecureWithNoSecureEndpointRaisesNoEndpoint() {
    assertThatThrownBy(
            () ->
                selector(withTls, "tether.override.secure", "true")
                    .select(proxy("s:tcp -h 127.0.0.2 -p 1")))
        .isInstanceOf(NoEndpointException.class)
        .hasMessageContaining("step 5");
  }

  @Test
  void overrideTimeoutReplacesEveryEndpointsTimeout() {
    List<Candidate> c =
        selector(withTls, "tether.override.timeout", "750ms")
            .select(proxy("s:tcp -h 127.0.0.1 -p 1 -t 5000:tcp -h 127.0.0.2 -p 1"));
    assertThat(c)
        .allSatisfy(x -> assertThat(x.timeout()).isEqualTo(java.time.Duration.ofMillis(750)));
  }

  @Test
  void overrideConnectTimeoutWinsForConnectingOnly() {
    List<Candidate> c =
        selector(withTls, "tether.override.connectTimeout", "2s")
            .select(proxy("s:tcp -h 127.0.0.1 -p 1 -t 5000"));
    assertThat(c.get(0).timeout()).isEqualTo(java.time.Duration.ofSeconds(5));
    assertThat(c.get(0).connectTimeout()).isEqualTo(java.time.Duration.ofSeconds(2));
  }

  @Test
  void proxyWithNoEndpointsRaisesNoEndpoint() {
    assertThatThrownBy(() -> selector(withTls).select(proxy("lonely")))
        .isInstanceOf(NoEndpointException.class);
  }

  @Test
  void compressionDoesNotChangeTheConnectionKey() {
    EndpointSelector s = selector(withTls);
    Candidate plain = s.select(proxy("s:tcp -h 127.0.0.1 -p 1 -t 100")).get(0);
    Candidate compressed = s.select(proxy("s:tcp -h 127.0.0.1 -p 1 -t 100 -z")).get(0);
    assertThat(compressed.key("")).isEqualTo(plain.key(""));
    Endpoint e = compressed.endpoint();
    assertThat(e.compress()).isTrue();
  }
}
