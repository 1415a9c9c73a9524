package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code -z} end to end: a Tether client and server on loopback with a fault proxy between them
 * that counts the bytes each way, so what crossed the wire is measured, not assumed.
 */
class CompressionTest {
  private static final byte[] LARGE = JsonLikeText.generate(256 * 1024, 1);

  private TetherServer server;
  private FaultProxy wire;
  private Tether tether;

  private Proxy start(TetherServer.Builder serverSettings, String endpointOptions) {
    server =
        serverSettings
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (operation, payload, context) -> payload)
            .build()
            .start();
    wire = FaultProxy.start("127.0.0.1", server.endpoints().get(0).port());
    tether = Tether.create();
    return tether.proxy("echo:" + wire.endpoint() + endpointOptions);
  }

  @AfterEach
  void stop() {
    if (tether != null) {
      tether.close();
    }
    if (wire != null) {
      wire.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aLargeTextPayloadCrossesTheWireInUnderAQuarterOfItsBytesBothWays() {
    Proxy zipped = start(TetherServer.builder(), " -z");

    assertThat(zipped.invoke("say", LARGE)).isEqualTo(LARGE);

    assertThat(wire.bytesForwarded(Direction.CLIENT_TO_SERVER)).isLessThan(LARGE.length / 4);
    assertThat(wire.bytesForwarded(Direction.SERVER_TO_CLIENT)).isLessThan(LARGE.length / 4);
  }

  @Test
  void withCompressionOnTheProxyCompressesLikeDashZ() {
    Proxy zipped = start(TetherServer.builder(), "").withCompression(true);

    assertThat(zipped.invoke("say", LARGE)).isEqualTo(LARGE);

    assertThat(wire.bytesForwarded(Direction.CLIENT_TO_SERVER)).isLessThan(LARGE.length / 4);
  }

  @Test
  void withoutDashZBodiesTravelAsTheyAre() {
    Proxy plain = start(TetherServer.builder(), "");

    assertThat(plain.invoke("say", LARGE)).isEqualTo(LARGE);

    // Neither way: the server compresses only the replies of compressed requests.
    assertThat(wire.bytesForwarded(Direction.CLIENT_TO_SERVER)).isGreaterThan(LARGE.length);
    assertThat(wire.bytesForwarded(Direction.SERVER_TO_CLIENT)).isGreaterThan(LARGE.length);
  }

  @Test
  void bodiesUpToTheThresholdAreNotCompressed() {
    byte[] small = JsonLikeText.generate(1024, 2);
    Proxy zipped = start(TetherServer.builder(), " -z");

    assertThat(zipped.invoke("say", small)).isEqualTo(small);

    assertThat(wire.bytesForwarded(Direction.CLIENT_TO_SERVER)).isGreaterThan(small.length);
    assertThat(wire.bytesForwarded(Direction.SERVER_TO_CLIENT)).isGreaterThan(small.length);
  }

  @Test
  void aServerWithCompressionOffServesDashZCallsUncompressed() {
    Proxy zipped =
        start(TetherServer.builder().property("tether.compression.enabled", "false"), " -z");

    assertThat(zipped.invoke("say", LARGE)).isEqualTo(LARGE);

    assertThat(wire.bytesForwarded(Direction.CLIENT_TO_SERVER)).isGreaterThan(LARGE.length);
    assertThat(wire.bytesForwarded(Direction.SERVER_TO_CLIENT)).isGreaterThan(LARGE.length);
  }

  @Test
  void compressedAndPlainProxiesShareOneConnection() {
    Proxy zipped = start(TetherServer.builder(), " -z");
    Proxy plain = tether.proxy("echo:" + wire.endpoint());

    assertThat(zipped.invoke("say", LARGE)).isEqualTo(LARGE);
    long afterZipped = wire.bytesForwarded(Direction.CLIENT_TO_SERVER);
    assertThat(plain.invoke("say", LARGE)).isEqualTo(LARGE);

    assertThat(wire.acceptedConnections()).isEqualTo(1);
    assertThat(wire.bytesForwarded(Direction.CLIENT_TO_SERVER) - afterZipped)
        .isGreaterThan(LARGE.length);
  }
}
