package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.NumberedItems;
import dev.tether.TetherServer;
import dev.tether.protocol.Frame;
import dev.tether.protocol.Hello;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamResume;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stream's resume token on the wire, spoken by hand: only the client that opened the stream can
 * resume it, a token the server never gave resumes nothing, and neither refusal harms the stream.
 */
class StreamTokenTest {
  private TetherServer server;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .streamService("feed", (operation, request, inbound, ctx) -> new NumberedItems(-1))
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private RawPeer connectAs(String clientId) throws Exception {
    RawPeer peer = RawPeer.connect(server.endpoints().get(0).port());
    peer.send(RawPeer.preface(ProtocolVersion.MAJOR), RawPeer.frame(new Hello(clientId, 1 << 20)));
    return peer;
  }

  private static Response answer(RawPeer peer, int frames) throws Exception {
    List<Frame> read = peer.readFrames(frames);
    return (Response) read.get(read.size() - 1);
  }

  private static byte[] resume(byte[] token) {
    return RawPeer.frame(
        new Request(
            1,
            Request.STREAM | Request.RESUME,
            "feed",
            "ticks",
            0,
            Map.of(),
            new StreamResume(token, 0, 0).encodeRequest()));
  }

  @Test
  void resumeTokenOfAnotherClientIsRefusedAndTheOwnerCanStillResume() throws Exception {
    byte[] token;
    try (RawPeer owner = connectAs("owner")) {
      owner.send(
          RawPeer.frame(new Request(1, Request.STREAM, "feed", "ticks", 0, Map.of(), new byte[0])));
      Response opened = answer(owner, 2); // WELCOME, then the opening's answer
      assertThat(opened.status()).isEqualTo(Status.OK);
      token = opened.body();
      assertThat(token).hasSize(StreamResume.TOKEN_BYTES);
    } // the connection is gone: the stream waits for its owner

    try (RawPeer thief = connectAs("someone else")) {
      thief.send(resume(token));
      Response refused = answer(thief, 2);
      assertThat(refused.status()).isEqualTo(Status.STREAM_LOST);
      assertThat(refused.metadata().get(Response.ERROR_MESSAGE)).contains("another client");
    }

    try (RawPeer owner = connectAs("owner")) {
      owner.send(resume(token));
      Response resumed = answer(owner, 2);
      assertThat(resumed.status()).isEqualTo(Status.OK);
      assertThat(StreamResume.decodeAnswer(resumed.body()).received()).isZero();
    }
  }

  @Test
  void tokenTheServerNeverGaveResumesNothing() throws Exception {
    try (RawPeer guesser = connectAs("guesser")) {
      guesser.send(resume(new byte[StreamResume.TOKEN_BYTES]));
      Response refused = answer(guesser, 2);
      assertThat(refused.status()).isEqualTo(Status.STREAM_LOST);
      assertThat(refused.metadata().get(Response.ERROR_MESSAGE)).contains("unknown stream");
    }
  }
}
