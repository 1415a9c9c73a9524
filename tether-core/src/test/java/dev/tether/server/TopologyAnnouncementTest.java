package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.protocol.Frame;
import dev.tether.protocol.Ping;
import dev.tether.protocol.Pong;
import dev.tether.protocol.TopologyUpdate;
import dev.tether.protocol.Welcome;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code setTopology} on a running server, seen by hand-written clients over loopback: a 1.1 client
 * is sent TOPOLOGY, a 1.0 client never is. A PING after the change shows what was sent: the server
 * status snapshot returns only once every connection's loop ran the announcement, so the PONG comes
 * after any TOPOLOGY frame.
 */
class TopologyAnnouncementTest {
  private static final Topology BEFORE =
      Topology.of("tcp -h 127.0.0.1 -p 7001", List.of("tcp -h 127.0.0.1 -p 7002"));
  private static final Topology AFTER =
      Topology.of("tcp -h 127.0.0.1 -p 7002", List.of("tcp -h 127.0.0.1 -p 7001"));
  private TetherServer server;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .topology(BEFORE)
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** Handshakes as a client of 1.{@code minor}, lets the server change its view, then pings. */
  private List<Frame> framesAfterTheChange(int minor) throws IOException {
    try (RawPeer peer = RawPeer.connect(server.endpoints().get(0).port())) {
      assertThat(peer.send(RawPeer.handshake(minor)).readFrames(1))
          .singleElement()
          .isInstanceOf(Welcome.class);

      server.setTopology(AFTER);
      assertThat(server.status().connections()).isEqualTo(1);
      peer.send(RawPeer.frame(new Ping(5)));

      List<Frame> frames = peer.readFrames(minor == 0 ? 2 : 3);
      assertThat(frames).last().isEqualTo(new Pong(5));
      return frames;
    }
  }

  @Test
  void connectedClientOfProtocol11IsSentTheNewTopology() throws IOException {
    assertThat(framesAfterTheChange(1))
        .element(1)
        .isEqualTo(new TopologyUpdate(AFTER.primary(), AFTER.alternates()));
  }

  @Test
  void connectedClientOfProtocol10IsNeverSentTopology() throws IOException {
    assertThat(framesAfterTheChange(0)).hasSize(2).first().isInstanceOf(Welcome.class);
  }

  @Test
  void clientThatConnectsAfterTheChangeGetsItInWelcomeOnly() throws IOException {
    server.setTopology(AFTER);
    try (RawPeer peer = RawPeer.connect(server.endpoints().get(0).port())) {
      List<Frame> frames = peer.send(RawPeer.handshake(1)).readFrames(1);
      assertThat(frames)
          .singleElement()
          .isInstanceOfSatisfying(
              Welcome.class, w -> assertThat(w.primary()).isEqualTo(AFTER.primary()));

      server.setTopology(AFTER);
      assertThat(server.status().connections()).isEqualTo(1);
      assertThat(peer.send(RawPeer.frame(new Ping(6))).readFrames(2)).last().isEqualTo(new Pong(6));
    }
  }

  @Test
  void aClientOfProtocol14IsSentTheEpochInWelcomeAndTopology() throws IOException {
    server.setTopology(BEFORE.withEpoch(40));
    try (RawPeer peer = RawPeer.connect(server.endpoints().get(0).port())) {
      assertThat(peer.send(RawPeer.handshake(4)).readFrames(1))
          .singleElement()
          .isInstanceOfSatisfying(Welcome.class, w -> assertThat(w.epoch()).isEqualTo(40));

      server.setTopology(AFTER.withEpoch(41));
      assertThat(server.status().connections()).isEqualTo(1);

      assertThat(peer.readFrames(2))
          .element(1)
          .isEqualTo(new TopologyUpdate(AFTER.primary(), AFTER.alternates(), 41));
    }
  }

  @Test
  void aClientOlderThanProtocol14IsSentTheViewWithoutItsEpoch() throws IOException {
    server.setTopology(BEFORE.withEpoch(40));
    try (RawPeer peer = RawPeer.connect(server.endpoints().get(0).port())) {
      assertThat(peer.send(RawPeer.handshake(3)).readFrames(1))
          .singleElement()
          .isInstanceOfSatisfying(Welcome.class, w -> assertThat(w.epoch()).isZero());

      server.setTopology(AFTER.withEpoch(41));
      assertThat(server.status().connections()).isEqualTo(1);

      assertThat(peer.readFrames(2))
          .element(1)
          .isEqualTo(new TopologyUpdate(AFTER.primary(), AFTER.alternates()));
    }
  }
}
