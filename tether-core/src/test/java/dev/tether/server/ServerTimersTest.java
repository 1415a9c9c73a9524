package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.TetherServer;
import dev.tether.TlsConfig;
import dev.tether.protocol.Frame;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Welcome;
import dev.tether.testing.ManualClock;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server's timers over real loopback sockets, on a clock the test moves: the reader idle closes
 * a silent client exactly at its limit, and the handshake deadline closes a peer that never says
 * HELLO, TLS handshake included. No test waits for real time to pass.
 */
class ServerTimersTest {
  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private TetherServer server;

  @AfterEach
  void stop() {
    server.close();
  }

  private int startServer(String endpoint, TlsConfig tls) {
    server =
        TetherServer.builder()
            .endpoints(endpoint)
            .tls(tls)
            .property("tether.server.readerIdle", "20s")
            .property("tether.server.handshakeTimeout", "5s")
            .ticker(clock)
            .scheduler(clock)
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
    return server.endpoints().get(0).port();
  }

  /**
   * HELLO answered, and the loop done with that read: WELCOME leaves during the read, the read's
   * end (where the connection notes the time of its last read) comes after, and a status snapshot
   * runs a task on every connection's loop, so it returns only once that read is over.
   */
  private void handshake(RawPeer peer) throws IOException {
    assertThat(peer.send(RawPeer.handshake()).readFrames(1))
        .singleElement()
        .isInstanceOf(Welcome.class);
    assertThat(server.status().connections()).isEqualTo(1);
  }

  @Test
  void silentClientIsSentGoAwayAndClosedExactlyAtTheServersReaderIdle() throws IOException {
    try (RawPeer peer = RawPeer.connect(startServer("tcp -h 127.0.0.1 -p 0", null))) {
      handshake(peer);

      clock.forward(Duration.ofSeconds(20).minusMillis(1));
      // The check ran on the connection's loop and found 1 ms to go: it waits for exactly that.
      await().until(clock::pendingDelays, p -> p.contains(Duration.ofMillis(1)));
      assertThat(peer.closedByServer()).isFalse();

      clock.forward(Duration.ofMillis(1));
      List<Frame> frames = peer.readUntilClosed();
      assertThat(frames)
          .last()
          .isInstanceOfSatisfying(
              GoAway.class, g -> assertThat(g.reason()).isEqualTo(GoAwayReason.IDLE_TIMEOUT));
      assertThat(peer.closedByServer()).isTrue();
    }
  }

  @Test
  void peerThatNeverSendsHelloIsClosedAtTheHandshakeDeadline() throws IOException {
    try (RawPeer peer = RawPeer.connect(startServer("tcp -h 127.0.0.1 -p 0", null))) {
      await().until(() -> clock.pendingDelays().contains(Duration.ofSeconds(5)));

      clock.forward(Duration.ofSeconds(5));

      assertThat(peer.readUntilClosed()).as("closed without a word").isEmpty();
      assertThat(peer.closedByServer()).isTrue();
    }
  }

  @Test
  void clientTricklingItsPrefaceOneByteASecondIsCutOffAtTheHandshakeDeadline() throws IOException {
    byte[] preface = RawPeer.preface(dev.tether.protocol.ProtocolVersion.MAJOR);
    try (RawPeer peer = RawPeer.connect(startServer("tcp -h 127.0.0.1 -p 0", null))) {
      await().until(() -> clock.pendingDelays().contains(Duration.ofSeconds(5)));

      for (int i = 0; i < 4; i++) {
        peer.send(new byte[] {preface[i]});
        clock.forward(Duration.ofSeconds(1));
      }
      // Four bytes and four seconds in: bytes arriving do not move the deadline, which is 1 s off.
      assertThat(server.connectionCount()).isEqualTo(1);
      assertThat(clock.pendingDelays()).contains(Duration.ofSeconds(1));

      peer.send(new byte[] {preface[4]});
      clock.forward(Duration.ofSeconds(1));

      assertThat(peer.readUntilClosed()).as("closed without a word").isEmpty();
      assertThat(peer.closedByServer()).isTrue();
      await().until(() -> server.connectionCount() == 0);
    }
  }

  @Test
  void peerStuckBeforeTheTlsHandshakeIsClosedAtTheHandshakeDeadline() throws Exception {
    X509Bundle self =
        new CertificateBuilder()
            .subject("CN=localhost")
            .addSanIpAddress("127.0.0.1")
            .setIsCertificateAuthority(true)
            .buildSelfSigned();
    TlsConfig tls =
        TlsConfig.fromPem(
            new ByteArrayInputStream(
                self.getCertificatePathPEM().getBytes(StandardCharsets.US_ASCII)),
            new ByteArrayInputStream(self.getPrivateKeyPEM().getBytes(StandardCharsets.US_ASCII)),
            null);
    // A plain socket on the ssl endpoint: it never sends a ClientHello.
    try (RawPeer peer = RawPeer.connect(startServer("ssl -h 127.0.0.1 -p 0", tls))) {
      await().until(() -> clock.pendingDelays().contains(Duration.ofSeconds(5)));

      clock.forward(Duration.ofSeconds(5));

      peer.readUntilClosed();
      assertThat(peer.closedByServer()).isTrue();
    }
  }

  @Test
  void welcomedClientOutlivesTheHandshakeDeadline() throws IOException {
    try (RawPeer peer = RawPeer.connect(startServer("tcp -h 127.0.0.1 -p 0", null))) {
      handshake(peer);

      clock.forward(Duration.ofSeconds(5));

      // Only the reader-idle check is left: the handshake deadline was called off at HELLO.
      await().until(clock::pendingDelays, p -> p.equals(List.of(Duration.ofSeconds(15))));
      assertThat(server.connectionCount()).isEqualTo(1);
    }
  }
}
