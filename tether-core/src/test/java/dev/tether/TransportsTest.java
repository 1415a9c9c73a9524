package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.observe.TetherEvent;
import dev.tether.transport.IoFlavor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TransportsTest {
  public record Greeting(String to, int times) {}

  public interface Greeter {
    String greet(Greeting g);

    void note(Greeting g);
  }

  static final class GreeterImpl implements Greeter {
    final List<Greeting> notes = new CopyOnWriteArrayList<>();

    @Override
    public String greet(Greeting g) {
      return ("hello " + g.to() + " ").repeat(g.times()).trim();
    }

    @Override
    public void note(Greeting g) {
      notes.add(g);
    }
  }

  private final GreeterImpl impl = new GreeterImpl();
  private TetherServer server;
  private Tether tether;

  @AfterEach
  void stop() throws Exception {
    Closing.all(tether, server);
  }

  private Greeter start(String endpoints, boolean nio) {
    server =
        TetherServer.builder()
            .endpoints(endpoints)
            .property("tether.transport.nio", String.valueOf(nio))
            .service("greeter", Greeter.class, impl)
            .build()
            .start();
    tether = Tether.builder().property("tether.transport.nio", String.valueOf(nio)).build();
    return tether.proxy(server.proxyString("greeter")).as(Greeter.class);
  }

  @ParameterizedTest(name = "nio={0}")
  @ValueSource(booleans = {false, true})
  void tcpCarriesATypedCallOnEpollAndNio(boolean nio) {
    Greeter g = start("tcp -h 127.0.0.1 -p 0", nio);
    assertThat(g.greet(new Greeting("tcp", 2))).isEqualTo("hello tcp hello tcp");
  }

  @Test
  void epollIsUsedWhenAvailable() {
    assertThat(IoFlavor.best(false))
        .isEqualTo(io.netty.channel.epoll.Epoll.isAvailable() ? IoFlavor.EPOLL : IoFlavor.NIO);
    assertThat(IoFlavor.best(true)).isEqualTo(IoFlavor.NIO);
  }

  @Test
  void localTransportCarriesATypedCallInsideTheJvm() {
    Greeter g = start("local -h inproc -p 0", false);
    assertThat(server.endpoints().get(0).toString()).startsWith("local -h inproc -p ");
    assertThat(g.greet(new Greeting("local", 1))).isEqualTo("hello local");
  }

  @Test
  void localConnectionsWorkWhenTheServerAnswersBeforeConnectReturns() {
    // In-JVM connects complete on the event loop at once, so the server's WELCOME can be read
    // before the connecting thread is back from connect(); each of these is a fresh connection.
    Greeter first = start("local -h inproc -p 0", false);
    assertThat(first.greet(new Greeting("x", 1))).isEqualTo("hello x");
    for (int i = 0; i < 300; i++) {
      Greeter g =
          tether.proxy(server.proxyString("greeter")).withConnectionId("c" + i).as(Greeter.class);
      assertThat(g.greet(new Greeting("n" + i, 1))).isEqualTo("hello n" + i);
    }
  }

  @ParameterizedTest(name = "nio={0}")
  @ValueSource(booleans = {false, true})
  void udpCarriesATypedOnewayCallAsADatagram(boolean nio) {
    start("udp -h 127.0.0.1 -p 0", nio);
    Greeter g =
        tether
            .proxy(server.proxyString("greeter"))
            .withMode(InvocationMode.DATAGRAM)
            .as(Greeter.class);
    assertThat(server.endpoints().get(0).isDatagram()).isTrue();
    // Datagrams may be dropped; send a few until one lands, bounded in count and time.
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              g.note(new Greeting("udp", 3));
              return !impl.notes.isEmpty();
            });
    assertThat(impl.notes.get(0)).isEqualTo(new Greeting("udp", 3));
  }

  @Test
  void datagramConnectionReportsItsOpeningAndItsClosingAsEvents() {
    start("udp -h 127.0.0.1 -p 0", false);
    List<TetherEvent.Kind> seen = new CopyOnWriteArrayList<>();
    Tether watched =
        Tether.builder()
            .listener(
                e -> {
                  if (e.endpoint() != null && e.endpoint().startsWith("udp")) {
                    seen.add(e.kind());
                  }
                })
            .build();
    Greeter g =
        watched
            .proxy(server.proxyString("greeter"))
            .withMode(InvocationMode.DATAGRAM)
            .as(Greeter.class);
    g.note(new Greeting("udp", 1));
    await().atMost(Duration.ofSeconds(5)).until(() -> seen.contains(TetherEvent.Kind.CONNECTED));
    watched.close();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> seen.contains(TetherEvent.Kind.CONNECTION_CLOSED));
    assertThat(seen)
        .containsSubsequence(TetherEvent.Kind.CONNECTED, TetherEvent.Kind.CONNECTION_CLOSED);
  }

  @Test
  void serverThatCannotBindOneEndpointReleasesTheOthersAndNamesTheEndpoint() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      TetherServer.Builder b =
          TetherServer.builder()
              .endpoints("tcp -h 127.0.0.1 -p 0:tcp -h 127.0.0.1 -p " + taken.getLocalPort())
              .service("greeter", Greeter.class, impl);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.build().start())
          .isInstanceOf(TetherException.class)
          .hasMessageContaining("-p " + taken.getLocalPort());
    }
  }

  @Test
  void serverOnSeveralTransportsAnswersOnEach() {
    start("tcp -h 127.0.0.1 -p 0:local -h multi -p 0", false);
    for (Endpoint e : server.endpoints()) {
      Greeter g = tether.proxy("greeter:" + e).as(Greeter.class);
      assertThat(g.greet(new Greeting(e.transport(), 1))).isEqualTo("hello " + e.transport());
    }
  }
}
