package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import dev.tether.Closing;
import dev.tether.NumberedItems;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Frame;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Hello;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import dev.tether.protocol.StreamResume;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client written by hand from docs/protocol.md that turns the stream rules against the server
 * across connections: it comes back again and again leaving streams behind, gathers resumed streams
 * on one connection, resumes another client's stream, and sends frames for ids it does not own. The
 * server holds no more than its settings say, and other clients' streams go on.
 */
class StreamAttackTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private final List<NumberedItems> opened = new CopyOnWriteArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private TetherServer server;

  private void start(TetherServer.Builder b) throws Exception {
    server =
        b.endpoints("tcp -h 127.0.0.1 -p 0")
            .streamService("feed", NumberedItems.counting(opened))
            .listener(events::add)
            .build()
            .start();
  }

  private RawPeer connect(String clientId) throws Exception {
    return RawPeer.connect(server.endpoints().get(0).port())
        .send(
            RawPeer.preface(ProtocolVersion.MAJOR, ProtocolVersion.MINOR),
            RawPeer.frame(new Hello(clientId, 1 << 20)));
  }

  @AfterEach
  void stop() throws Exception {
    Closing.all(server);
  }

  @Test
  void aClientThatKeepsReconnectingLeavesNoMoreDetachedStreamsThanTheServersCap() throws Exception {
    start(
        TetherServer.builder()
            .maxStreamsPerConnection(100)
            .property("tether.server.maxDetachedStreams", "150"));
    List<byte[]> tokens = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      try (RawPeer peer = connect("raw")) {
        byte[][] openings = new byte[100][];
        for (int i = 0; i < 100; i++) {
          openings[i] = RawPeer.frame(opening(2 * i + 1, 0));
        }
        peer.send(openings);
        for (Frame f : replies(peer, 100)) {
          assertThat(((Response) f).status()).isEqualTo(Status.OK);
          tokens.add(((Response) f).body());
        }
      }
    }

    await().atMost(PATIENCE).until(() -> server.status().detachedStreams() == 150);
    await()
        .atMost(PATIENCE)
        .until(() -> opened.stream().filter(o -> o.cancels() == 1).count() == 150);
    assertThat(events)
        .filteredOn(e -> e.kind() == TetherEvent.Kind.STREAM_LOST)
        .hasSize(150)
        .allMatch(e -> e.detail().contains("tether.server.maxDetachedStreams"));

    // Each token is kept or forgotten: a RESUME of every one gets 150 of each answer.
    try (RawPeer peer = connect("raw")) {
      int ok = 0;
      int lost = 0;
      for (int batch = 0; batch < 3; batch++) {
        byte[][] resumes = new byte[100][];
        for (int i = 0; i < 100; i++) {
          resumes[i] = RawPeer.frame(resume(2 * i + 1, tokens.get(batch * 100 + i)));
        }
        peer.send(resumes);
        for (Frame f :
            peer.readFrames(1 + 100 * (batch + 1))
                .subList(1 + 100 * batch, 1 + 100 * (batch + 1))) {
          Status status = ((Response) f).status();
          ok += status == Status.OK ? 1 : 0;
          lost += status == Status.STREAM_LOST ? 1 : 0;
          if (status == Status.OK) {
            peer.send(RawPeer.frame(new Cancel(f.requestId())));
          }
        }
      }
      assertThat(ok).isEqualTo(150);
      assertThat(lost).isEqualTo(150);
    }
  }

  @Test
  void aResumeOnAConnectionAtItsStreamCapIsRefusedAndTheStreamWaitsOn() throws Exception {
    start(TetherServer.builder().maxStreamsPerConnection(2));
    byte[] token;
    try (RawPeer first = connect("raw")) {
      first.send(RawPeer.frame(opening(1, 0)));
      token = ((Response) replies(first, 1).get(0)).body();
    }
    await().atMost(PATIENCE).until(() -> server.status().detachedStreams() == 1);

    try (RawPeer peer = connect("raw")) {
      peer.send(
          RawPeer.frame(opening(1, 0)),
          RawPeer.frame(opening(3, 0)),
          RawPeer.frame(resume(5, token)));
      List<Frame> frames = replies(peer, 3);
      assertThat(frames)
          .extracting(f -> ((Response) f).requestId(), f -> ((Response) f).status())
          .containsExactlyInAnyOrder(
              tuple(1, Status.OK), tuple(3, Status.OK), tuple(5, Status.REFUSED));
      assertThat(server.status().streams()).isEqualTo(2);
      assertThat(server.status().detachedStreams()).isEqualTo(1);

      // Room again on the connection: the stream the cap turned away resumes.
      peer.send(RawPeer.frame(new Cancel(1)), RawPeer.frame(resume(7, token)));
      Frame resumed = peer.readFrames(5).get(4);
      assertThat(resumed)
          .isInstanceOfSatisfying(
              Response.class,
              r -> {
                assertThat(r.requestId()).isEqualTo(7);
                assertThat(r.status()).isEqualTo(Status.OK);
              });
      await().atMost(PATIENCE).until(() -> server.status().detachedStreams() == 0);
      assertThat(opened.get(0).cancels()).isZero();
    }
  }

  @Test
  void anotherClientsResumeIsRefusedAndLeavesTheStreamForItsOwner() throws Exception {
    start(TetherServer.builder());
    byte[] token;
    try (RawPeer owner = connect("owner")) {
      owner.send(RawPeer.frame(opening(1, 0)));
      token = ((Response) replies(owner, 1).get(0)).body();
    }
    await().atMost(PATIENCE).until(() -> server.status().detachedStreams() == 1);

    try (RawPeer thief = connect("thief")) {
      thief.send(RawPeer.frame(resume(1, token)));
      Response refused = (Response) replies(thief, 1).get(0);
      assertThat(refused.status()).isEqualTo(Status.STREAM_LOST);
      assertThat(refused.metadata().get(Response.ERROR_MESSAGE))
          .isEqualTo("the stream belongs to another client");
      // Its id is free again on the thief's connection: an opening on it is no protocol error.
      thief.send(RawPeer.frame(opening(1, 0)));
      assertThat(((Response) thief.readFrames(3).get(2)).status()).isEqualTo(Status.OK);
    }
    assertThat(opened.get(0).cancels()).isZero();
    try (RawPeer owner = connect("owner")) {
      owner.send(RawPeer.frame(resume(9, token)));
      assertThat(((Response) replies(owner, 1).get(0)).status()).isEqualTo(Status.OK);
    }
  }

  @Test
  void framesForIdsTheClientDoesNotHoldAreIgnoredAndTheConnectionGoesOn() throws Exception {
    start(TetherServer.builder());
    try (RawPeer peer = connect("raw")) {
      peer.send(RawPeer.frame(opening(1, 0)));
      assertThat(((Response) replies(peer, 1).get(0)).status()).isEqualTo(Status.OK);

      peer.send(
          RawPeer.frame(new Cancel(99)),
          RawPeer.frame(new StreamEnd(99, Status.OK, 5, Map.of())),
          RawPeer.frame(new StreamCredit(99, Long.MAX_VALUE, Long.MAX_VALUE)),
          // A server stream has no client direction: its end means nothing.
          RawPeer.frame(new StreamEnd(1, Status.STREAM_LOST, Long.MAX_VALUE, Map.of())),
          // Credit beyond anything produced acknowledges what was produced, no more.
          RawPeer.frame(new StreamCredit(1, Long.MAX_VALUE, 2)),
          RawPeer.frame(opening(3, 0)));

      List<Frame> frames = peer.readFrames(5);
      assertThat(frames.subList(2, 5))
          .filteredOn(f -> f instanceof Response)
          .singleElement()
          .satisfies(
              f -> {
                assertThat(f.requestId()).isEqualTo(3);
                assertThat(((Response) f).status()).isEqualTo(Status.OK);
              });
      assertThat(frames.subList(2, 5))
          .filteredOn(f -> f instanceof StreamItem)
          .extracting(f -> ((StreamItem) f).position())
          .containsExactly(1L, 2L);
      assertThat(peer.closedByServer()).isFalse();
      assertThat(server.status().streams()).isEqualTo(2);
      assertThat(opened.get(0).cancels()).isZero();
    }
  }

  @Test
  void anOpeningOnTheIdOfAResumedStreamEndsTheConnectionAndNothingAfterItCounts() throws Exception {
    start(TetherServer.builder());
    byte[] token;
    try (RawPeer first = connect("raw")) {
      first.send(RawPeer.frame(opening(1, 0)));
      token = ((Response) replies(first, 1).get(0)).body();
    }
    await().atMost(PATIENCE).until(() -> server.status().detachedStreams() == 1);

    try (RawPeer peer = connect("raw")) {
      peer.send(
          RawPeer.frame(resume(3, token)),
          RawPeer.frame(opening(3, 0)),
          RawPeer.frame(opening(5, 0)),
          RawPeer.frame(new StreamItem(5, 1, new byte[8])));
      List<Frame> frames = peer.readUntilClosed();
      assertThat(frames.get(frames.size() - 1))
          .isInstanceOfSatisfying(
              GoAway.class,
              g -> {
                assertThat(g.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
                assertThat(g.message()).isEqualTo("stream id 3 is in use by an open stream");
              });
    }
    await().atMost(PATIENCE).until(() -> server.status().streams() == 0);
    assertThat(opened).hasSize(1);
    assertThat(opened.get(0).cancels()).isEqualTo(1);
    assertThat(server.status().detachedStreams()).isZero();
  }

  @Test
  void aCreditPastTwoToTheSixtyThreeEndsTheConnectionBeforeAnyItemIsAskedFor() throws Exception {
    start(TetherServer.builder());
    try (RawPeer peer = connect("raw")) {
      peer.send(RawPeer.frame(opening(1, 0)));
      assertThat(((Response) replies(peer, 1).get(0)).status()).isEqualTo(Status.OK);

      // STREAM_CREDIT for stream 1, received 0, limit 2^64-1 (a varint64 of ten bytes): as a Java
      // long it would be -1, a limit no position reaches.
      byte[] credit = {
        0,
        0,
        0,
        17,
        0x0c,
        0,
        0,
        0,
        0,
        1,
        0,
        (byte) 0xff,
        (byte) 0xff,
        (byte) 0xff,
        (byte) 0xff,
        (byte) 0xff,
        (byte) 0xff,
        (byte) 0xff,
        (byte) 0xff,
        (byte) 0xff,
        0x01
      };
      peer.send(credit);

      List<Frame> frames = peer.readUntilClosed();
      assertThat(frames.get(frames.size() - 1))
          .isInstanceOfSatisfying(
              GoAway.class,
              g -> {
                assertThat(g.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
                assertThat(g.message()).isEqualTo("STREAM_CREDIT.limit: varint exceeds 2^63-1");
              });
    }
    await().atMost(PATIENCE).until(() -> server.status().streams() == 0);
    assertThat(opened.get(0).requested()).isZero();
  }

  private static Request resume(int id, byte[] token) {
    return new Request(
        id,
        Request.STREAM | Request.RESUME,
        "feed",
        "watch",
        0,
        Map.of(),
        new StreamResume(token, 0, 0).encodeRequest());
  }

  private static Request opening(int id, int flags) {
    return new Request(
        id,
        Request.STREAM | flags,
        "feed",
        "watch",
        0,
        Map.of(),
        "-1".getBytes(StandardCharsets.US_ASCII));
  }

  /** The first {@code count} frames from the server after its WELCOME. */
  private static List<Frame> replies(RawPeer peer, int count) throws Exception {
    List<Frame> frames = peer.readFrames(count + 1);
    assertThat(frames.get(0)).isInstanceOf(dev.tether.protocol.Welcome.class);
    return frames.subList(1, frames.size());
  }
}
