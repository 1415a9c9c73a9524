package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.CollectingSubscriber;
import dev.tether.ManualPublisher;
import dev.tether.RawStreamService;
import dev.tether.RemoteException;
import dev.tether.StreamLostException;
import dev.tether.internal.EventBus;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Frame;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import dev.tether.protocol.StreamResume;
import dev.tether.stream.StreamSettings;
import dev.tether.testing.ManualClock;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One server stream on {@link EmbeddedChannel}s, each the connection it is carried on, with the
 * stream's work run at once on the test's thread and its resume window on a {@link ManualClock}.
 * The client's frames are handed to the connection's stream table as its reader would; what the
 * stream writes is read back from the channel.
 */
class ServerStreamTest {
  private static final Duration RESUME_WINDOW = Duration.ofSeconds(30);
  private static final Duration PATIENCE = Duration.ofSeconds(5);
  private static final Peer OWNER = new Peer(null, List.of(), "owner");

  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final EventBus eventBus = new EventBus(List.of(events::add), clock, "stream-test-events");
  private final ManualPublisher service = new ManualPublisher();
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  /** What the service was opened with: its request and the client's items. */
  private byte[] openedWith;

  private Flow.Publisher<byte[]> inbound;
  private StreamSettings settings = new StreamSettings(64, 64 << 10, 1 << 20, RESUME_WINDOW);
  private RawStreamService handler =
      (operation, request, in, ctx) -> {
        openedWith = request;
        inbound = in;
        return service;
      };
  private StreamRegistry registry;
  private Oversight oversight = Oversight.NONE;
  private Executor executor = Runnable::run;

  @AfterEach
  void release() {
    channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    eventBus.close();
  }

  @Test
  void anOpeningIsAnsweredOkWithASixteenByteTokenAndOpensTheServiceWithItsRequest() {
    Connection c = connect();

    c.open(1, 0);

    Response answer = c.next(Response.class);
    assertThat(answer.requestId()).isEqualTo(1);
    assertThat(answer.status()).isEqualTo(Status.OK);
    assertThat(answer.body()).hasSize(StreamResume.TOKEN_BYTES);
    assertThat(new String(openedWith, StandardCharsets.US_ASCII)).isEqualTo("watch me");
    assertThat(registry.find(answer.body())).isNotNull();
    assertThat(c.table.size()).isEqualTo(1);
    awaitEvent(TetherEvent.Kind.STREAM_OPENED);
  }

  @Test
  void theServiceIsAskedForNoMoreThanTheClientsCredit() {
    Connection c = connect();
    c.open(1, 0);
    c.next(Response.class);
    assertThat(service.requested()).as("no credit yet").isZero();

    c.fromClient(new StreamCredit(1, 0, 3));
    service.emit("a", "b", "c");

    assertThat(service.requested()).isEqualTo(3);
    assertThat(c.items()).extracting(StreamItem::position).containsExactly(1L, 2L, 3L);
    assertThat(c.written()).isEmpty();
  }

  @Test
  void theServicesCompletionClosesTheStreamOnlyOnceTheClientAcknowledgesTheLastItem() {
    Connection c = connect();
    byte[] token = c.openAndTakeToken(1, 0);
    c.fromClient(new StreamCredit(1, 0, 10));
    service.emit("a", "b");

    service.complete();

    c.items();
    StreamEnd end = c.next(StreamEnd.class);
    assertThat(end.status()).isEqualTo(Status.OK);
    assertThat(end.finalPosition()).isEqualTo(2);
    assertThat(registry.find(token).state()).isEqualTo(ServerStream.State.OPEN);

    c.fromClient(new StreamCredit(1, 2, 10));

    assertThat(registry.find(token)).as("forgotten once closed").isNull();
    assertThat(c.table.size()).isZero();
    TetherEvent closed = awaitEvent(TetherEvent.Kind.STREAM_CLOSED);
    assertThat(closed.items()).isEqualTo(new TetherEvent.StreamItems(2, 0));
  }

  @Test
  void aFailingServicePublisherEndsTheStreamWithARemoteError() {
    Connection c = connect();
    c.openAndTakeToken(1, 0);

    service.fail(new IllegalStateException("feed broke"));

    StreamEnd end = c.next(StreamEnd.class);
    assertThat(end.status()).isEqualTo(Status.REMOTE_ERROR);
    assertThat(end.metadata())
        .containsEntry(Response.ERROR_TYPE, IllegalStateException.class.getName())
        .containsEntry(Response.ERROR_MESSAGE, "feed broke");
  }

  @Test
  void aServiceThatThrowsWhenOpenedEndsTheStreamWithARemoteError() {
    handler =
        (operation, request, in, ctx) -> {
          throw new IllegalArgumentException("no such symbol");
        };
    Connection c = connect();

    byte[] token = c.openAndTakeToken(1, 0);

    StreamEnd end = c.next(StreamEnd.class);
    assertThat(end.status()).isEqualTo(Status.REMOTE_ERROR);
    assertThat(end.finalPosition()).isZero();
    assertThat(end.metadata()).containsEntry(Response.ERROR_MESSAGE, "no such symbol");
    assertThat(registry.find(token)).as("no item waits for an acknowledgement").isNull();
    awaitEvent(TetherEvent.Kind.STREAM_CLOSED);
  }

  @Test
  void aServiceThatReturnsNoPublisherEndsTheStreamWithAClearError() {
    handler = (operation, request, in, ctx) -> null;
    Connection c = connect();

    c.openAndTakeToken(1, 0);

    assertThat(c.next(StreamEnd.class).metadata())
        .containsEntry(Response.ERROR_MESSAGE, "the stream service returned no publisher");
  }

  @Test
  void aCancelFromTheClientCancelsTheServiceAndClosesTheStream() {
    Connection c = connect();
    byte[] token = c.openAndTakeToken(1, 0);
    c.fromClient(new StreamCredit(1, 0, 10));
    service.emit("a");

    c.fromClient(new Cancel(1));

    assertThat(service.isCancelled()).isTrue();
    assertThat(registry.find(token)).isNull();
    assertThat(c.table.size()).isZero();
    TetherEvent closed = awaitEvent(TetherEvent.Kind.STREAM_CLOSED);
    assertThat(closed.items()).isEqualTo(new TetherEvent.StreamItems(1, 0));
  }

  @Test
  void aLostConnectionDetachesTheStreamAndLeavesTheServiceRunning() {
    Connection c = connect();
    byte[] token = c.openAndTakeToken(1, 0);
    c.fromClient(new StreamCredit(1, 0, 10));

    c.table.connectionClosed();
    service.emit("while away");

    assertThat(registry.find(token).state()).isEqualTo(ServerStream.State.DETACHED);
    assertThat(registry.detached()).isEqualTo(1);
    assertThat(service.isCancelled()).isFalse();
    assertThat(c.written()).as("nothing goes to a closed connection").isEmpty();
  }

  @Test
  void aDetachedStreamIsLostWhenTheResumeWindowEndsOnTheClock() {
    Connection c = connect();
    byte[] token = c.openAndTakeToken(1, 0);
    c.table.connectionClosed();

    clock.forward(RESUME_WINDOW.minusMillis(1));
    assertThat(registry.find(token).state()).isEqualTo(ServerStream.State.DETACHED);
    clock.forward(Duration.ofMillis(1));

    assertThat(registry.find(token)).isNull();
    assertThat(registry.detached()).isZero();
    assertThat(service.isCancelled()).isTrue();
    assertThat(awaitEvent(TetherEvent.Kind.STREAM_LOST).detail()).contains("not resumed within");
  }

  @Test
  void aResumeOnANewConnectionReplaysWhatTheClientLacksUnderItsNewIdAndGoesOn() {
    Connection first = connect();
    byte[] token = first.openAndTakeToken(1, 0);
    first.fromClient(new StreamCredit(1, 0, 10));
    service.emit("a", "b", "c");
    first.fromClient(new StreamCredit(1, 1, 10)); // the client acknowledged item 1
    first.items();
    first.table.connectionClosed();
    service.emit("d");
    Connection second = connect();

    second.resume(5, OWNER, token, 2, 12);

    Response answer = second.next(Response.class);
    assertThat(answer.status()).isEqualTo(Status.OK);
    StreamResume mine = StreamResume.decodeAnswer(answer.body());
    assertThat(mine.received()).as("the service took none of the client's items").isZero();
    List<StreamItem> replayed = second.items();
    assertThat(replayed).extracting(StreamItem::position).containsExactly(3L, 4L);
    assertThat(replayed).allSatisfy(i -> assertThat(i.streamId()).isEqualTo(5));
    assertThat(service.requested()).as("the new limit").isEqualTo(12);
    assertThat(registry.find(token).state()).isEqualTo(ServerStream.State.OPEN);
    assertThat(registry.detached()).isZero();
    awaitEvent(TetherEvent.Kind.STREAM_RESUMED);

    clock.forward(RESUME_WINDOW.multipliedBy(2));
    assertThat(service.isCancelled()).as("the expiry was called off").isFalse();
  }

  @Test
  void framesFromTheConnectionAResumedStreamLeftAreIgnored() {
    Connection first = connect();
    byte[] token = first.openAndTakeToken(1, 0);
    ServerStream stream = registry.find(token);
    first.table.connectionClosed();
    Connection second = connect();
    second.resume(5, OWNER, token, 0, 4);
    second.written();

    stream.onFrame(new StreamCredit(1, 0, 100), first.table);
    stream.onFrame(new Cancel(1), first.table);

    assertThat(service.requested()).isEqualTo(4);
    assertThat(service.isCancelled()).isFalse();
  }

  @Test
  void aResumeByAnotherClientIsRefusedAndTheStreamWaitsForItsOwner() {
    Connection first = connect();
    byte[] token = first.openAndTakeToken(1, 0);
    first.table.connectionClosed();
    Connection thief = connect();

    thief.resume(5, new Peer(null, List.of(), "someone else"), token, 0, 10);

    Response refusal = thief.next(Response.class);
    assertThat(refusal.status()).isEqualTo(Status.STREAM_LOST);
    assertThat(refusal.metadata())
        .containsEntry(Response.ERROR_MESSAGE, "the stream belongs to another client");
    assertThat(thief.table.size()).isZero();
    assertThat(registry.find(token).state()).isEqualTo(ServerStream.State.DETACHED);
    Connection owner = connect();
    owner.resume(6, OWNER, token, 0, 10);
    assertThat(owner.next(Response.class).status()).isEqualTo(Status.OK);
  }

  @Test
  void aResumeNeedingItemsTheOverflowedBufferDroppedIsRefusedAndLosesTheStream() {
    settings = new StreamSettings(64, 64 << 10, 10, RESUME_WINDOW);
    Connection first = connect();
    byte[] token = first.openAndTakeToken(1, 0);
    first.fromClient(new StreamCredit(1, 0, 10));
    service.emitSized(3, 4); // 12 bytes unacknowledged against a buffer of 10
    first.table.connectionClosed();
    Connection second = connect();

    second.resume(5, OWNER, token, 0, 10);

    Response refusal = second.next(Response.class);
    assertThat(refusal.status()).isEqualTo(Status.STREAM_LOST);
    assertThat(refusal.metadata())
        .containsEntry(Response.ERROR_MESSAGE, "the items to replay outgrew the resume buffer");
    assertThat(registry.find(token)).isNull();
    assertThat(service.isCancelled()).isTrue();
    TetherEvent lost = awaitEvent(TetherEvent.Kind.STREAM_LOST);
    assertThat(lost.items()).isEqualTo(new TetherEvent.StreamItems(3, 0));
  }

  @Test
  void aResumeOfATokenTheServerDoesNotKnowIsAnsweredStreamLost() {
    Connection c = connect();

    c.resume(5, OWNER, new byte[StreamResume.TOKEN_BYTES], 0, 10);

    Response refusal = c.next(Response.class);
    assertThat(refusal.status()).isEqualTo(Status.STREAM_LOST);
    assertThat(refusal.metadata().get(Response.ERROR_MESSAGE)).contains("unknown stream");
  }

  @Test
  void theServerClosingLosesTheStreamAndTellsTheClientWhy() {
    Connection c = connect();
    byte[] token = c.openAndTakeToken(1, 0);
    c.fromClient(new StreamCredit(1, 0, 10));
    service.emit("a");

    registry.closeAll("server shut down", 1000);

    c.items();
    StreamEnd end = c.next(StreamEnd.class);
    assertThat(end.status()).isEqualTo(Status.STREAM_LOST);
    assertThat(end.finalPosition()).isEqualTo(1);
    assertThat(end.metadata()).containsEntry(Response.ERROR_MESSAGE, "server shut down");
    assertThat(service.isCancelled()).isTrue();
    assertThat(registry.find(token)).isNull();
    awaitEvent(TetherEvent.Kind.STREAM_LOST);
  }

  @Test
  void theClientsItemsReachTheServiceOnlyAsItAsksAndItsEndCompletesThem() {
    Connection c = connect();
    c.openAndTakeToken(1, Request.BIDI);
    CollectingSubscriber items = new CollectingSubscriber(2);

    inbound.subscribe(items);

    StreamCredit credit = c.next(StreamCredit.class);
    assertThat(credit.limit()).as("credit for what the service asked").isEqualTo(2);
    c.fromClient(new StreamItem(1, 1, bytes("x")));
    c.fromClient(new StreamItem(1, 2, bytes("y")));
    c.fromClient(new StreamItem(1, 2, bytes("y"))); // a replay after a resume: dropped
    c.fromClient(new StreamEnd(1, Status.OK, 2, Map.of()));
    assertThat(items.items()).extracting(ServerStreamTest::text).containsExactly("x", "y");
    assertThat(items.done()).isCompleted();
    assertThat(c.next(StreamCredit.class).received()).as("the last acknowledgement").isEqualTo(2);
  }

  @Test
  void theClientsFailureReachesTheServicesInboundAsARemoteException() {
    Connection c = connect();
    c.openAndTakeToken(1, Request.BIDI);
    CollectingSubscriber items = new CollectingSubscriber(10);
    inbound.subscribe(items);

    c.fromClient(
        new StreamEnd(
            1,
            Status.REMOTE_ERROR,
            0,
            Map.of(Response.ERROR_TYPE, "java.io.IOException", Response.ERROR_MESSAGE, "disk")));

    assertThat(items.done())
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(RemoteException.class)
        .satisfies(
            e -> {
              assertThat(((RemoteException) e).remoteType()).isEqualTo("java.io.IOException");
              assertThat(((RemoteException) e).remoteMessage()).isEqualTo("disk");
            });
  }

  @Test
  void theServicesInboundHearsOfALostStreamWithWhatItWasDelivered() {
    Connection c = connect();
    c.openAndTakeToken(1, Request.BIDI);
    CollectingSubscriber items = new CollectingSubscriber(10);
    inbound.subscribe(items);
    c.fromClient(new StreamItem(1, 1, bytes("x")));

    registry.closeAll("server shut down", 1000);

    assertThat(items.done())
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOfSatisfying(
            StreamLostException.class, e -> assertThat(e.delivered()).isEqualTo(1));
  }

  @Test
  void aServerStreamsInboundEndsAtOnceAndASecondSubscriberIsRefused() {
    Connection c = connect();
    c.openAndTakeToken(1, 0);
    CollectingSubscriber first = new CollectingSubscriber(1);
    CollectingSubscriber second = new CollectingSubscriber(1);

    inbound.subscribe(first);
    inbound.subscribe(second);

    assertThat(first.done()).isCompleted();
    assertThat(second.done())
        .failsWithin(Duration.ZERO)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aServerThatNoLongerAcceptsRefusesTheOpeningAndMakesNoStream() {
    Connection c = connect();

    c.table.handle(opening(1, 0), OWNER, false);

    assertThat(c.next(Response.class).status()).isEqualTo(Status.REFUSED);
    assertThat(registry.size()).isZero();
    assertThat(service.isSubscribed()).isFalse();
  }

  @Test
  void aCancelWhileTheInterceptorsLookAtTheOpeningMeansTheServiceNeverStarts() {
    oversight = new Oversight(new Interceptors(List.of(call -> {})), null);
    Deque<Runnable> queued = new ArrayDeque<>();
    executor = queued::add;
    Connection c = connect();
    c.open(1, 0);

    c.fromClient(new Cancel(1));
    while (!queued.isEmpty()) {
      queued.poll().run();
    }

    assertThat(openedWith).as("the service was never opened").isNull();
    assertThat(c.written()).as("a cancelled opening is not answered").isEmpty();
    assertThat(registry.size()).isZero();
    assertThat(c.table.size()).isZero();
  }

  @Test
  void aResumeTakenJustBeforeTheWindowsExpiryRanKeepsTheStream() {
    Deque<Runnable> queued = new ArrayDeque<>();
    boolean[] holding = {false};
    executor = task -> run(task, holding[0], queued);
    Connection first = connect();
    byte[] token = first.openAndTakeToken(1, 0);
    first.table.connectionClosed();
    Connection second = connect();

    holding[0] = true; // the stream's thread is busy: the RESUME waits, then the expiry behind it
    second.resume(5, OWNER, token, 0, 0);
    clock.forward(RESUME_WINDOW);
    holding[0] = false;
    while (!queued.isEmpty()) {
      queued.poll().run();
    }

    assertThat(second.next(Response.class).status()).isEqualTo(Status.OK);
    assertThat(registry.find(token).state()).isEqualTo(ServerStream.State.OPEN);
    assertThat(service.isCancelled()).as("an expiry that came too late changes nothing").isFalse();
    assertThat(events).noneMatch(e -> e.kind() == TetherEvent.Kind.STREAM_LOST);
  }

  private static void run(Runnable task, boolean holding, Deque<Runnable> queued) {
    if (holding || !queued.isEmpty()) {
      queued.add(task);
    } else {
      task.run();
    }
  }

  /** One connection: its channel and its stream table, sharing the test's registry. */
  private final class Connection {
    final EmbeddedChannel channel = new EmbeddedChannel();
    final ServerStreams table;

    Connection() {
      channels.add(channel);
      table = new ServerStreams(channel, registry);
    }

    void open(int id, int flags) {
      table.handle(opening(id, flags), OWNER, true);
    }

    /** Opens stream {@code id} and takes its answer, the token. */
    byte[] openAndTakeToken(int id, int flags) {
      open(id, flags);
      return next(Response.class).body();
    }

    void resume(int id, Peer peer, byte[] token, long received, long limit) {
      byte[] body = new StreamResume(token, received, limit).encodeRequest();
      table.handle(
          new Request(id, Request.STREAM | Request.RESUME, "feed", "watch", 0, Map.of(), body),
          peer,
          true);
    }

    void fromClient(Frame frame) {
      assertThat(table.onFrame(frame)).as("a stream of that id is here").isTrue();
    }

    /** The next frame written, which must be a {@code type}. */
    <T extends Frame> T next(Class<T> type) {
      Object frame = channel.readOutbound();
      assertThat(frame).isInstanceOf(type);
      return type.cast(frame);
    }

    /** Every item written until the next frame of another kind (which stays unread). */
    List<StreamItem> items() {
      List<StreamItem> items = new ArrayList<>();
      while (channel.outboundMessages().peek() instanceof StreamItem) {
        items.add(channel.readOutbound());
      }
      return items;
    }

    /** Everything written and not yet read. */
    List<Object> written() {
      List<Object> all = new ArrayList<>();
      Object frame;
      while ((frame = channel.readOutbound()) != null) {
        all.add(frame);
      }
      return all;
    }
  }

  private Connection connect() {
    if (registry == null) {
      registry =
          new StreamRegistry(
              Map.of("feed", handler),
              settings,
              executor,
              clock,
              clock,
              eventBus,
              oversight,
              StreamRegistry.DEFAULT_MAX_STREAMS_PER_CONNECTION,
              StreamRegistry.DEFAULT_MAX_DETACHED_STREAMS);
    }
    return new Connection();
  }

  private static Request opening(int id, int flags) {
    return new Request(id, Request.STREAM | flags, "feed", "watch", 0, Map.of(), bytes("watch me"));
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
