package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.CollectingSubscriber;
import dev.tether.Endpoint;
import dev.tether.IncompatibleServerException;
import dev.tether.InvocationMode;
import dev.tether.ManualPublisher;
import dev.tether.RemoteException;
import dev.tether.Resolver;
import dev.tether.StreamLostException;
import dev.tether.TetherException;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import dev.tether.protocol.StreamResume;
import dev.tether.testing.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One client stream, opened through its cold publisher on a runtime whose ticker and scheduler are
 * a {@link ManualClock}, against a server the test plays frame by frame over the in-JVM transport:
 * what the stream sends is read off the connection, what it is sent is written by hand. The resume
 * pause, the key's backoff and the resume window move only when the test forwards the clock.
 */
class ClientStreamTest {
  private static final String HOST = "client-stream-test";
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  /** How far the clock moves on each look while the test waits for the client to act on it. */
  private static final Duration STEP = Duration.ofMillis(100);

  private static final Duration POLL = Duration.ofMillis(10);

  private static final byte[] TOKEN = "sixteen byte tok".getBytes(StandardCharsets.US_ASCII);

  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final Properties config = new Properties();
  private ScriptedStreamServer server = new ScriptedStreamServer(HOST, ProtocolVersion.MINOR);
  private ClientRuntime runtime;

  @AfterEach
  void stop() {
    if (runtime != null) {
      runtime.shutdown().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
    server.close();
  }

  @Test
  void theOpeningIsAStreamRequestAndTheSubscribersDemandBecomesCredit() {
    CollectingSubscriber subscriber = new CollectingSubscriber(5);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();

    Request opening = peer.next(Request.class);
    peer.send(accepted(opening));

    assertThat(opening.flags() & Request.STREAM).isNotZero();
    assertThat(opening.flags() & Request.BIDI).as("a server stream").isZero();
    assertThat(opening.service()).isEqualTo("feed");
    assertThat(opening.operation()).isEqualTo("watch");
    assertThat(text(opening.body())).isEqualTo("AAPL");
    StreamCredit credit = peer.next(StreamCredit.class);
    assertThat(credit.streamId()).isEqualTo(opening.requestId());
    assertThat(credit.received()).isZero();
    assertThat(credit.limit()).isEqualTo(5);
    awaitEvent(TetherEvent.Kind.STREAM_OPENED);
  }

  @Test
  void creditNeverReachesBeyondTheWindowWhateverTheSubscriberAskedFor() {
    config.setProperty("tether.stream.window", "4");
    config.setProperty("tether.stream.windowBytes", "0");
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);

    peer.send(accepted(opening));

    assertThat(peer.next(StreamCredit.class).limit()).isEqualTo(4);
    peer.send(items(opening, 1, "a", "b"));
    StreamCredit next = peer.next(StreamCredit.class);
    assertThat(next.received()).isEqualTo(2);
    assertThat(next.limit()).as("two delivered, a window beyond").isEqualTo(6);
  }

  @Test
  void anItemPastTheCreditGivenEndsTheConnectionAsAProtocolErrorBeforeItIsKept() {
    CollectingSubscriber subscriber = new CollectingSubscriber(2);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);
    peer.send(accepted(opening));
    assertThat(peer.next(StreamCredit.class).limit()).isEqualTo(2);

    peer.send(items(opening, 1, "a", "b", "c"));

    GoAway goAway = peer.next(GoAway.class);
    assertThat(goAway.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
    assertThat(goAway.message())
        .isEqualTo(
            "item 3 on stream "
                + Integer.toUnsignedString(opening.requestId())
                + " is past the credit given, 2");
    assertThat(subscriber.items()).hasSizeLessThanOrEqualTo(2);
  }

  @Test
  void itemsReachTheSubscriberInOrderOnceEachAndOnlyAsItAsks() {
    CollectingSubscriber subscriber = new CollectingSubscriber(2);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);
    peer.send(accepted(opening));
    peer.next(StreamCredit.class);

    peer.send(items(opening, 1, "a", "b"));
    peer.send(items(opening, 2, "b")); // a replay of what it already has

    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 2);
    subscriber.request(1);
    assertThat(peer.next(StreamCredit.class).limit()).isEqualTo(3);
    peer.send(items(opening, 3, "c"));
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 3);
    assertThat(subscriber.items())
        .extracting(ClientStreamTest::text)
        .containsExactly("a", "b", "c");
  }

  @Test
  void theServersEndCompletesTheSubscriberAfterItsItemsAndIsAcknowledged() throws Exception {
    CollectingSubscriber subscriber = new CollectingSubscriber(10);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);
    peer.send(accepted(opening));
    peer.next(StreamCredit.class);

    peer.send(items(opening, 1, "a", "b"));
    peer.send(new StreamEnd(opening.requestId(), Status.OK, 2, Map.of()));

    subscriber.done().get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(subscriber.items()).hasSize(2);
    assertThat(creditAcknowledging(peer, 2).limit())
        .as("the last acknowledgement asks for nothing new")
        .isEqualTo(10);
    TetherEvent closed = awaitEvent(TetherEvent.Kind.STREAM_CLOSED);
    assertThat(closed.items()).isEqualTo(new TetherEvent.StreamItems(0, 2));
  }

  @Test
  void aServiceErrorReachesTheSubscriberAsARemoteExceptionWithItsTypeAndMessage() {
    CollectingSubscriber subscriber = new CollectingSubscriber(10);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);
    peer.send(accepted(opening));

    peer.send(
        new StreamEnd(
            opening.requestId(),
            Status.REMOTE_ERROR,
            0,
            Map.of(
                Response.ERROR_TYPE,
                "java.lang.IllegalStateException",
                Response.ERROR_MESSAGE,
                "feed broke")));

    RemoteException failure = failure(subscriber, RemoteException.class);
    assertThat(failure.remoteType()).isEqualTo("java.lang.IllegalStateException");
    assertThat(failure.remoteMessage()).isEqualTo("feed broke");
    awaitEvent(TetherEvent.Kind.STREAM_CLOSED);
  }

  @Test
  void theServersStreamLostEndFailsTheSubscriberAtOnceAndIsALostStream() {
    CollectingSubscriber subscriber = new CollectingSubscriber(1);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);
    peer.send(accepted(opening));
    peer.next(StreamCredit.class);

    peer.send(items(opening, 1, "a"));
    peer.send(
        new StreamEnd(
            opening.requestId(),
            Status.STREAM_LOST,
            1,
            Map.of(Response.ERROR_MESSAGE, "server shut down")));

    StreamLostException lost = failure(subscriber, StreamLostException.class);
    assertThat(lost.delivered()).isEqualTo(1);
    assertThat(lost.getMessage()).contains("server shut down");
    TetherEvent event = awaitEvent(TetherEvent.Kind.STREAM_LOST);
    assertThat(event.items()).isEqualTo(new TetherEvent.StreamItems(0, 1));
    assertThat(eventsSoFar()).noneMatch(e -> e.kind() == TetherEvent.Kind.STREAM_CLOSED);
  }

  @Test
  void cancellingTheSubscriptionSendsCancelAndClosesTheStream() {
    CollectingSubscriber subscriber = new CollectingSubscriber(1);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);
    peer.send(accepted(opening));
    peer.next(StreamCredit.class);

    subscriber.cancel();

    assertThat(peer.next(Cancel.class).requestId()).isEqualTo(opening.requestId());
    awaitEvent(TetherEvent.Kind.STREAM_CLOSED);
    assertThat(subscriber.done()).isNotDone();
  }

  @Test
  void aRefusedOpeningFailsTheSubscriberAndNoStreamEventIsEmitted() {
    CollectingSubscriber subscriber = new CollectingSubscriber(1);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);

    peer.send(
        new Response(
            opening.requestId(),
            Status.SERVICE_NOT_FOUND,
            Map.of(Response.ERROR_MESSAGE, "no stream service \"feed\""),
            new byte[0]));

    assertThat(failure(subscriber, TetherException.class)).hasMessageContaining("feed");
    assertThat(eventsSoFar())
        .extracting(TetherEvent::kind)
        .doesNotContain(
            TetherEvent.Kind.STREAM_OPENED,
            TetherEvent.Kind.STREAM_CLOSED,
            TetherEvent.Kind.STREAM_LOST);
  }

  @Test
  void aServerOlderThanTheStreamProtocolFailsTheOpeningBeforeAnythingIsSent() {
    server.close();
    server = new ScriptedStreamServer(HOST, ProtocolVersion.FIRST_MINOR_OF_1_3 - 1);
    CollectingSubscriber subscriber = new CollectingSubscriber(1);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();

    assertThat(failure(subscriber, IncompatibleServerException.class))
        .hasMessageContaining("cannot open streams");
    assertThat(peer.receivedNothingMore()).isTrue();
  }

  @Test
  void aLostConnectionIsResumedOnANewOneFromWhatWasReceivedWithoutTheSubscriberNoticing() {
    CollectingSubscriber subscriber = new CollectingSubscriber(10);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer first = server.nextConnection();
    Request opening = first.next(Request.class);
    first.send(accepted(opening));
    first.next(StreamCredit.class);
    first.send(items(opening, 1, "a", "b"));
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 2);

    first.breakConnection();
    ScriptedStreamServer.Peer second = reconnected();
    Request resume = second.next(Request.class);

    assertThat(resume.flags() & Request.RESUME).isNotZero();
    StreamResume asked = StreamResume.decodeRequest(resume.body());
    assertThat(asked.token()).isEqualTo(TOKEN);
    assertThat(asked.received()).isEqualTo(2);
    second.send(
        new Response(
            resume.requestId(),
            Status.OK,
            Map.of(),
            new StreamResume(new byte[0], 0, 0).encodeAnswer()));
    second.send(items(resume, 2, "b", "c")); // the server replays from what it last knew
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 3);
    assertThat(subscriber.items())
        .extracting(ClientStreamTest::text)
        .containsExactly("a", "b", "c");
    assertThat(subscriber.done()).isNotDone();
    awaitEvent(TetherEvent.Kind.STREAM_RESUMED);
  }

  @Test
  void withResumingOffALostConnectionLosesTheStreamWithWhatWasDelivered() {
    config.setProperty("tether.stream.resumeWindow", "0s");
    CollectingSubscriber subscriber = new CollectingSubscriber(10);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);
    peer.send(accepted(opening));
    peer.next(StreamCredit.class);
    peer.send(items(opening, 1, "a", "b", "c"));
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 3);

    peer.breakConnection();

    StreamLostException lost = failure(subscriber, StreamLostException.class);
    assertThat(lost.delivered()).isEqualTo(3);
    assertThat(lost.getMessage()).contains("resuming is off");
    assertThat(awaitEvent(TetherEvent.Kind.STREAM_LOST).items())
        .isEqualTo(new TetherEvent.StreamItems(0, 3));
  }

  @Test
  void aResumeTheServerAnswersStreamLostLosesTheStream() {
    CollectingSubscriber subscriber = new CollectingSubscriber(10);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer first = server.nextConnection();
    Request opening = first.next(Request.class);
    first.send(accepted(opening));
    first.next(StreamCredit.class);
    first.send(items(opening, 1, "a"));
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 1);
    first.breakConnection();
    ScriptedStreamServer.Peer second = reconnected();
    Request resume = second.next(Request.class);

    second.send(
        new Response(
            resume.requestId(),
            Status.STREAM_LOST,
            Map.of(Response.ERROR_MESSAGE, "unknown stream: the server restarted or forgot it"),
            new byte[0]));

    StreamLostException lost = failure(subscriber, StreamLostException.class);
    assertThat(lost.delivered()).isEqualTo(1);
    awaitEvent(TetherEvent.Kind.STREAM_LOST);
  }

  @Test
  void aStreamWhoseServerStaysAwayIsLostWhenItsResumeWindowEndsOnTheClock() {
    config.setProperty("tether.stream.resumeWindow", "2s");
    CollectingSubscriber subscriber = new CollectingSubscriber(10);
    stream(null).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);
    peer.send(accepted(opening));
    server.close();

    peer.breakConnection();
    await()
        .atMost(PATIENCE)
        .pollInterval(POLL)
        .until(
            () -> {
              clock.forward(STEP);
              return subscriber.done().isDone();
            });

    StreamLostException lost = failure(subscriber, StreamLostException.class);
    assertThat(lost.getMessage()).contains("not resumed within 2000 ms");
    awaitEvent(TetherEvent.Kind.STREAM_LOST);
  }

  @Test
  void theOutboundPublisherIsAskedForNoMoreThanTheServersCredit() {
    ManualPublisher outbound = new ManualPublisher();
    CollectingSubscriber subscriber = new CollectingSubscriber(1);
    stream(outbound).subscribe(subscriber);
    ScriptedStreamServer.Peer peer = server.nextConnection();
    Request opening = peer.next(Request.class);
    assertThat(opening.flags() & Request.BIDI).isNotZero();
    peer.send(accepted(opening));
    peer.next(StreamCredit.class);
    await().atMost(PATIENCE).until(outbound::isSubscribed);
    assertThat(outbound.requested()).as("no credit from the server yet").isZero();

    peer.send(new StreamCredit(opening.requestId(), 0, 2));
    await().atMost(PATIENCE).until(() -> outbound.requested() == 2);
    outbound.emit("x", "y");

    StreamItem x = peer.next(StreamItem.class);
    StreamItem y = peer.next(StreamItem.class);
    assertThat(List.of(x.position(), y.position())).containsExactly(1L, 2L);
    assertThat(text(y.body())).isEqualTo("y");
  }

  @Test
  void aResumedBidirectionalStreamResendsTheItemsTheServerDidNotAcknowledge() {
    ManualPublisher outbound = new ManualPublisher();
    CollectingSubscriber subscriber = new CollectingSubscriber(1);
    stream(outbound).subscribe(subscriber);
    ScriptedStreamServer.Peer first = server.nextConnection();
    Request opening = first.next(Request.class);
    first.send(accepted(opening));
    first.next(StreamCredit.class);
    first.send(new StreamCredit(opening.requestId(), 0, 10));
    await().atMost(PATIENCE).until(() -> outbound.requested() == 10);
    outbound.emit("x", "y", "z");
    first.next(StreamItem.class);
    first.next(StreamItem.class);
    first.next(StreamItem.class);

    first.breakConnection();
    ScriptedStreamServer.Peer second = reconnected();
    Request resume = second.next(Request.class);
    second.send(
        new Response(
            resume.requestId(),
            Status.OK,
            Map.of(),
            new StreamResume(new byte[0], 2, 10).encodeAnswer()));

    StreamItem resent = second.next(StreamItem.class);
    assertThat(resent.streamId()).isEqualTo(resume.requestId());
    assertThat(resent.position()).isEqualTo(3);
    assertThat(text(resent.body())).isEqualTo("z");
  }

  @Test
  void aResumeNeedingOutboundItemsTheOverflowedBufferDroppedCancelsAndLosesTheStream() {
    config.setProperty("tether.stream.resumeBuffer", "10");
    ManualPublisher outbound = new ManualPublisher();
    CollectingSubscriber subscriber = new CollectingSubscriber(5);
    stream(outbound).subscribe(subscriber);
    ScriptedStreamServer.Peer first = server.nextConnection();
    Request opening = first.next(Request.class);
    first.send(accepted(opening));
    first.next(StreamCredit.class);
    first.send(items(opening, 1, "a"));
    first.send(new StreamCredit(opening.requestId(), 0, 10));
    await().atMost(PATIENCE).until(() -> outbound.requested() == 10);
    outbound.emitSized(3, 4); // 12 bytes unacknowledged against a buffer of 10
    for (int i = 0; i < 3; i++) {
      first.next(StreamItem.class);
    }

    first.breakConnection();
    ScriptedStreamServer.Peer second = reconnected();
    Request resume = second.next(Request.class);
    second.send(
        new Response(
            resume.requestId(),
            Status.OK,
            Map.of(),
            new StreamResume(new byte[0], 0, 10).encodeAnswer()));

    assertThat(second.next(Cancel.class).requestId()).isEqualTo(resume.requestId());
    StreamLostException lost = failure(subscriber, StreamLostException.class);
    assertThat(lost.getMessage()).contains("outgrew the resume buffer");
    assertThat(lost.delivered()).isEqualTo(1);
    assertThat(awaitEvent(TetherEvent.Kind.STREAM_LOST).items())
        .isEqualTo(new TetherEvent.StreamItems(3, 1));
  }

  /**
   * The connection the client opens after the first broke, the clock moving through its backoff.
   */
  private ScriptedStreamServer.Peer reconnected() {
    return await()
        .atMost(PATIENCE)
        .pollInterval(POLL)
        .until(
            () -> {
              clock.forward(STEP);
              return server.pollConnection();
            },
            Objects::nonNull);
  }

  private Flow.Publisher<byte[]> stream(Flow.Publisher<byte[]> outbound) {
    runtime =
        new ClientRuntime(
            ClientConfig.from(config),
            Resolver.system(),
            null,
            clock,
            clock,
            new Random(7),
            (host, settings) -> null,
            List.of(events::add),
            null);
    ProxySettings settings =
        ProxySettings.of(
            "feed", InvocationMode.TWOWAY, false, List.of(Endpoint.parse(server.endpoint(HOST))));
    return runtime.stream(runtime.bind(settings), "watch", bytes("AAPL"), outbound, 0);
  }

  private static Response accepted(Request opening) {
    return new Response(opening.requestId(), Status.OK, Map.of(), TOKEN);
  }

  private static StreamItem[] items(Request opening, long firstPosition, String... bodies) {
    StreamItem[] items = new StreamItem[bodies.length];
    for (int i = 0; i < bodies.length; i++) {
      items[i] = new StreamItem(opening.requestId(), firstPosition + i, bytes(bodies[i]));
    }
    return items;
  }

  /**
   * The first credit the client sends that acknowledges {@code position}; the earlier ones pass.
   */
  private static StreamCredit creditAcknowledging(ScriptedStreamServer.Peer peer, long position) {
    for (int i = 0; i < 16; i++) {
      StreamCredit credit = peer.next(StreamCredit.class);
      if (credit.received() >= position) {
        return credit;
      }
    }
    throw new AssertionError("no credit acknowledged position " + position);
  }

  private static <T extends Throwable> T failure(CollectingSubscriber s, Class<T> type) {
    try {
      s.done().get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(type);
      return type.cast(e.getCause());
    } catch (Exception e) {
      throw new AssertionError("the subscriber heard no failure within " + PATIENCE, e);
    }
    throw new AssertionError("the subscriber completed instead of failing");
  }

  /** Every event emitted until now, delivered: the runtime's event bus is closed for it. */
  private List<TetherEvent> eventsSoFar() {
    runtime.events().close();
    return events;
  }

  private TetherEvent awaitEvent(TetherEvent.Kind kind) {
    return await()
        .atMost(PATIENCE)
        .until(
            () -> events.stream().filter(e -> e.kind() == kind).findFirst().orElse(null),
            e -> e != null);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static String text(byte[] item) {
    return new String(item, StandardCharsets.US_ASCII);
  }
}
