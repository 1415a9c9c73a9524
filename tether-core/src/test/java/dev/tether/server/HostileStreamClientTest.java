package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
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
import dev.tether.protocol.StreamItem;
import dev.tether.protocol.StreamResume;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client written by hand from docs/protocol.md that breaks the stream rules, over real loopback:
 * items past the credit, items on a stream that takes none, an id reused while its stream lives.
 * Each ends that connection with GOAWAY(PROTOCOL_ERROR) before anything it sent is kept, the
 * stream's service is cancelled and the server holds no stream of it; openings past the
 * connection's stream cap are refused, and an id the client let go may open a new stream.
 */
class HostileStreamClientTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final int ITEM_BYTES = 1024;

  /**
   * docs/reliability.md's bound on what a stream makes its server produce for a client that reads
   * nothing: the kernel's socket buffers on loopback (a few MiB each way), the 1 MiB write buffer,
   * the 1 MiB resume buffer and 32 items asked ahead.
   */
  private static final long FLOOD_BOUND_BYTES = 16L << 20;

  private final List<NumberedItems> opened = new CopyOnWriteArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private TetherServer server;

  private RawPeer start(TetherServer.Builder b) throws Exception {
    server =
        b.endpoints("tcp -h 127.0.0.1 -p 0")
            .streamService("feed", NumberedItems.counting(opened))
            .listener(events::add)
            .build()
            .start();
    return RawPeer.connect(server.endpoints().get(0).port()).send(RawPeer.handshake());
  }

  @AfterEach
  void stop() throws Exception {
    Closing.all(server);
  }

  @Test
  void itemsPastTheCreditEndTheConnectionAsAProtocolErrorAndCancelTheService() throws Exception {
    try (RawPeer peer = start(TetherServer.builder())) {
      peer.send(RawPeer.frame(opening(1, Request.BIDI)));
      assertThat(answer(peer, 1).status()).isEqualTo(Status.OK);

      // The service never reads the client's items, so it gave no credit: 128 MiB unasked.
      byte[] mebibyte = new byte[1 << 20];
      for (int position = 1; position <= 128 && !peer.closedByServer(); position++) {
        try {
          peer.send(RawPeer.frame(new StreamItem(1, position, mebibyte)));
        } catch (java.io.IOException closed) {
          break; // the server closed on the first one: the rest could not be written
        }
      }

      assertProtocolError(peer, "item 1 on stream 1 is past the credit given, 0");
    }
    assertServiceCancelledAndNothingHeld();
  }

  @Test
  void anItemOnAStreamThatTakesNoneEndsTheConnectionAsAProtocolError() throws Exception {
    try (RawPeer peer = start(TetherServer.builder())) {
      peer.send(RawPeer.frame(opening(1, 0)));
      assertThat(answer(peer, 1).status()).isEqualTo(Status.OK);

      peer.send(RawPeer.frame(new StreamItem(1, 1, new byte[64])));

      assertProtocolError(peer, "stream 1 has no client items");
    }
    assertServiceCancelledAndNothingHeld();
  }

  @Test
  void anOpeningOnTheIdOfAStreamStillOpenEndsTheConnectionAndLeavesNoStream() throws Exception {
    try (RawPeer peer = start(TetherServer.builder())) {
      peer.send(RawPeer.frame(opening(1, 0)));
      assertThat(answer(peer, 1).status()).isEqualTo(Status.OK);

      peer.send(RawPeer.frame(opening(1, 0)));

      assertProtocolError(peer, "stream id 1 is in use by an open stream");
    }
    assertServiceCancelledAndNothingHeld();
  }

  @Test
  void anIdTheClientCancelledOpensANewStream() throws Exception {
    try (RawPeer peer = start(TetherServer.builder())) {
      peer.send(RawPeer.frame(opening(1, 0)));
      assertThat(answer(peer, 1).status()).isEqualTo(Status.OK);

      peer.send(RawPeer.frame(new Cancel(1)), RawPeer.frame(opening(1, 0)));

      List<Frame> frames = replies(peer, 2);
      assertThat(frames).hasSize(2).allMatch(f -> f instanceof Response r && r.requestId() == 1);
      assertThat(((Response) frames.get(1)).status()).isEqualTo(Status.OK);
      assertThat(peer.closedByServer()).isFalse();
      await().atMost(PATIENCE).until(() -> opened.size() == 2 && opened.get(0).cancels() == 1);
      assertThat(opened.get(1).cancels()).isZero();
      assertThat(server.status().streams()).isEqualTo(1);
    }
  }

  @Test
  void anOpeningPastTheConnectionsStreamCapIsRefusedAndRunsNothing() throws Exception {
    try (RawPeer peer = start(TetherServer.builder().maxStreamsPerConnection(2))) {
      peer.send(
          RawPeer.frame(opening(1, 0)), RawPeer.frame(opening(3, 0)), RawPeer.frame(opening(5, 0)));

      List<Frame> frames = replies(peer, 3);
      assertThat(frames)
          .extracting(f -> ((Response) f).requestId(), f -> ((Response) f).status())
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple(1, Status.OK),
              org.assertj.core.groups.Tuple.tuple(3, Status.OK),
              org.assertj.core.groups.Tuple.tuple(5, Status.REFUSED));
      assertThat(frames)
          .filteredOn(f -> ((Response) f).status() == Status.REFUSED)
          .singleElement()
          .extracting(f -> ((Response) f).metadata().get(Response.ERROR_MESSAGE))
          .isEqualTo("this connection has its 2 streams open already");
      assertThat(opened).hasSize(2);
      assertThat(server.status().streams()).isEqualTo(2);
    }
  }

  @Test
  void aHugeCreditFromAClientThatReadsNothingHoldsTheServerToABoundedNumberOfItems()
      throws Exception {
    List<NumberedItems> kib = new CopyOnWriteArrayList<>();
    TetherServer.Builder b =
        TetherServer.builder()
            .service("echo", (op, payload, ctx) -> payload)
            .streamService(
                "kib",
                (op, request, inbound, ctx) -> {
                  NumberedItems items = new NumberedItems(-1, n -> new byte[ITEM_BYTES]);
                  kib.add(items);
                  return items;
                });
    try (RawPeer peer = start(b)) {
      // Asks for 2^62 items and never reads a byte of them.
      peer.send(
          RawPeer.frame(new Request(1, Request.STREAM, "kib", "flood", 0, Map.of(), new byte[0])),
          RawPeer.frame(new StreamCredit(1, 0, 1L << 62)));
      await().atMost(PATIENCE).until(() -> kib.size() == 1 && kib.get(0).emitted() > 0);

      long[] last = {-1};
      await()
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(100))
          .during(Duration.ofSeconds(1))
          .until(
              () -> {
                long now = kib.get(0).emitted();
                boolean settled = now == last[0];
                last[0] = now;
                return settled;
              });

      long heldBytes = kib.get(0).emitted() * ITEM_BYTES;
      System.out.printf(
          "huge credit, nothing read: the service produced %d items of %d bytes (%d KiB),"
              + " %d KiB of them unread in the client's socket%n",
          kib.get(0).emitted(), ITEM_BYTES, heldBytes >> 10, peer.unread() >> 10);
      assertThat(heldBytes)
          .as("what the service produced: socket buffers, the write buffer, the resume buffer")
          .isLessThanOrEqualTo(FLOOD_BOUND_BYTES);
      try (dev.tether.Tether tether = dev.tether.Tether.create()) {
        byte[] hello = "still served".getBytes(StandardCharsets.US_ASCII);
        assertThat(tether.proxy(server.proxyString("echo")).invoke("echo", hello)).isEqualTo(hello);
      }
    }
  }

  @Test
  void aSecondResumeOfAStreamOnOneConnectionFreesTheIdTheFirstGaveIt() throws Exception {
    byte[] token;
    try (RawPeer first = start(TetherServer.builder())) {
      first.send(RawPeer.frame(opening(1, 0)));
      token = answer(first, 1).body();
    }
    await().atMost(PATIENCE).until(() -> server.status().detachedStreams() == 1);

    try (RawPeer peer =
        RawPeer.connect(server.endpoints().get(0).port()).send(RawPeer.handshake())) {
      peer.send(RawPeer.frame(resume(3, token)), RawPeer.frame(resume(5, token)));
      assertThat(replies(peer, 2))
          .extracting(f -> ((Response) f).requestId(), f -> ((Response) f).status())
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(3, Status.OK),
              org.assertj.core.groups.Tuple.tuple(5, Status.OK));

      // The stream ends on its second id; its first is free again, not "in use" for ever.
      peer.send(RawPeer.frame(new Cancel(5)), RawPeer.frame(opening(3, 0)));

      Frame reopened = peer.readFrames(4).get(3);
      assertThat(reopened)
          .isInstanceOfSatisfying(
              Response.class,
              r -> {
                assertThat(r.requestId()).isEqualTo(3);
                assertThat(r.status()).isEqualTo(Status.OK);
              });
      assertThat(peer.closedByServer()).isFalse();
      await().atMost(PATIENCE).until(() -> opened.size() == 2 && opened.get(0).cancels() == 1);
      assertThat(server.status().streams()).isEqualTo(1);
    }
  }

  @Test
  void aResumeOnAConnectionThatTakesSmallerFramesIsRefusedNamingTheItemItCouldNotReplay()
      throws Exception {
    List<NumberedItems> big = new CopyOnWriteArrayList<>();
    TetherServer.Builder b =
        TetherServer.builder()
            .streamService(
                "big",
                (op, request, inbound, ctx) -> {
                  NumberedItems items = new NumberedItems(-1, n -> new byte[64 * 1024]);
                  big.add(items);
                  return items;
                });
    byte[] token;
    try (RawPeer first = start(b)) {
      first.send(
          RawPeer.frame(new Request(1, Request.STREAM, "big", "items", 0, Map.of(), new byte[0])),
          RawPeer.frame(new StreamCredit(1, 0, 4)));
      List<Frame> frames = first.readFrames(6); // WELCOME, the answer, 4 items never acknowledged
      token = ((Response) frames.get(1)).body();
      assertThat(frames.subList(2, 6)).allMatch(f -> f instanceof StreamItem);
    }
    await().atMost(PATIENCE).until(() -> server.status().detachedStreams() == 1);

    try (RawPeer peer = RawPeer.connect(server.endpoints().get(0).port())) {
      peer.send(
          RawPeer.preface(ProtocolVersion.MAJOR),
          RawPeer.frame(new Hello("raw", 1024)),
          RawPeer.frame(resume(3, token, "big")));

      List<Frame> frames = replies(peer, 1);
      assertThat(frames)
          .first()
          .isInstanceOfSatisfying(
              Response.class,
              r -> {
                assertThat(r.status()).isEqualTo(Status.STREAM_LOST);
                assertThat(r.metadata().get(Response.ERROR_MESSAGE))
                    .isEqualTo(
                        "stream item 1 of 65536 bytes is a frame of 65543 bytes, over the 1024"
                            + " bytes the peer accepts on the connection it resumes on; it"
                            + " cannot be replayed");
              });
      assertThat(frames).noneMatch(f -> f instanceof StreamItem);
      await().atMost(PATIENCE).until(() -> big.get(0).cancels() == 1);
      await().atMost(PATIENCE).until(() -> server.status().streams() == 0);
      assertThat(peer.closedByServer()).isFalse();
    }
  }

  private static Request resume(int id, byte[] token) {
    return resume(id, token, "feed");
  }

  private static Request resume(int id, byte[] token, String service) {
    return new Request(
        id,
        Request.STREAM | Request.RESUME,
        service,
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

  /** The first frame from the server after WELCOME, which must answer the opening {@code id}. */
  private static Response answer(RawPeer peer, int id) throws Exception {
    Frame first = replies(peer, 1).get(0);
    assertThat(first).isInstanceOf(Response.class);
    assertThat(first.requestId()).isEqualTo(id);
    return (Response) first;
  }

  private void assertProtocolError(RawPeer peer, String why) throws Exception {
    List<Frame> frames = peer.readUntilClosed();
    assertThat(peer.closedByServer()).isTrue();
    assertThat(frames.get(frames.size() - 1))
        .isInstanceOfSatisfying(
            GoAway.class,
            g -> {
              assertThat(g.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
              assertThat(g.message()).isEqualTo(why);
            });
    await()
        .atMost(PATIENCE)
        .until(() -> events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.PROTOCOL_ERROR));
  }

  private void assertServiceCancelledAndNothingHeld() {
    await().atMost(PATIENCE).until(() -> opened.stream().allMatch(o -> o.cancels() == 1));
    await().atMost(PATIENCE).until(() -> server.status().streams() == 0);
    assertThat(server.status().detachedStreams()).isZero();
    assertThat(events).anyMatch(e -> e.kind() == TetherEvent.Kind.STREAM_LOST);
  }
}
