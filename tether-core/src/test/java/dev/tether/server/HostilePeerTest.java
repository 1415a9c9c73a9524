package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Endpoint;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.protocol.Frame;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Hello;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Request;
import dev.tether.protocol.Welcome;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server facing peers that break the protocol: each bad connection gets GOAWAY and is closed, and
 * a well-behaved client on another connection keeps being served throughout.
 */
class HostilePeerTest {
  private TetherServer server;
  private Tether tether;
  private Proxy healthy;
  private int port;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
    Endpoint e = server.endpoints().get(0);
    port = e.port();
    tether = Tether.create();
    healthy = tether.proxy(server.proxyString("echo"));
    assertHealthyClientServed();
  }

  @AfterEach
  void stop() {
    tether.close();
    server.close();
  }

  @Test
  void goodHandshakeIsWelcomed() throws IOException {
    List<Frame> answer =
        exchangeUntil(
            2,
            preface(ProtocolVersion.MAJOR),
            frame(new Hello("raw", 1 << 20)),
            frame(
                new Request(
                    1, 0, "echo", "echo", 0, Map.of(), "hi".getBytes(StandardCharsets.UTF_8))));
    assertThat(answer.get(0)).isInstanceOf(Welcome.class);
    assertThat(answer.get(1))
        .isInstanceOfSatisfying(
            dev.tether.protocol.Response.class,
            r -> assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("hi"));
  }

  @Test
  void wrongVersionGetsUnsupportedVersionGoAwayAndIsClosed() throws IOException {
    List<Frame> answer =
        exchange(preface(ProtocolVersion.MAJOR + 1), frame(new Hello("raw", 1 << 20)));
    assertGoAway(answer, GoAwayReason.UNSUPPORTED_VERSION);
    assertHealthyClientServed();
  }

  @Test
  void garbagePrefaceGetsProtocolErrorAndIsClosed() throws IOException {
    List<Frame> answer =
        exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    assertGoAway(answer, GoAwayReason.PROTOCOL_ERROR);
    assertHealthyClientServed();
  }

  @Test
  void requestBeforeHandshakeGetsProtocolError() throws IOException {
    List<Frame> answer =
        exchange(
            preface(ProtocolVersion.MAJOR),
            frame(new Request(1, 0, "echo", "echo", 0, Map.of(), new byte[0])));
    assertGoAway(answer, GoAwayReason.PROTOCOL_ERROR);
    assertHealthyClientServed();
  }

  @Test
  void oversizedLengthClosesOnlyThatConnection() throws IOException {
    byte[] huge = {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 3, 0, 0, 0, 0, 1};
    List<Frame> answer =
        exchange(preface(ProtocolVersion.MAJOR), frame(new Hello("raw", 1 << 20)), huge);
    assertThat(answer.get(0)).isInstanceOf(Welcome.class);
    assertGoAway(answer, GoAwayReason.PROTOCOL_ERROR);
    assertHealthyClientServed();
  }

  @Test
  void randomGarbageAfterHandshakeNeverAffectsOtherConnections() throws IOException {
    Random random = new Random(20261129L);
    for (int i = 0; i < 200; i++) {
      byte[] junk = new byte[1 + random.nextInt(64)];
      random.nextBytes(junk);
      // A plausible length so the server parses the junk instead of waiting for more bytes.
      byte[] framed = Unpooled.buffer().writeInt(junk.length).writeBytes(junk).array();
      byte[] sized = java.util.Arrays.copyOf(framed, 4 + junk.length);
      exchange(
          preface(ProtocolVersion.MAJOR),
          frame(new Hello("raw", 1 << 20)),
          sized,
          frame(new GoAway(GoAwayReason.SHUTDOWN, 0, "bye")));
    }
    assertHealthyClientServed();
    assertThat(server.connectionCount()).isEqualTo(1);
  }

  private void assertHealthyClientServed() {
    assertThat(healthy.invoke("echo", "still here".getBytes(StandardCharsets.UTF_8)))
        .asString()
        .isEqualTo("still here");
  }

  private static void assertGoAway(List<Frame> answer, GoAwayReason reason) {
    assertThat(answer)
        .last()
        .isInstanceOfSatisfying(GoAway.class, g -> assertThat(g.reason()).isEqualTo(reason));
  }

  private static byte[] preface(int major) {
    return RawPeer.preface(major);
  }

  private static byte[] frame(Frame f) {
    return RawPeer.frame(f);
  }

  /** Sends the parts, reads until the server closes, and decodes what came back. */
  private List<Frame> exchange(byte[]... parts) throws IOException {
    return exchangeUntil(Integer.MAX_VALUE, parts);
  }

  /** Sends the parts, reads until {@code frames} frames arrived or the server closed. */
  private List<Frame> exchangeUntil(int frames, byte[]... parts) throws IOException {
    try (RawPeer peer = RawPeer.connect(port)) {
      return peer.send(parts).readFrames(frames);
    }
  }
}
