package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.tether.ExecutionMode;
import dev.tether.internal.AgeJitter;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.FrameEncoder;
import dev.tether.protocol.FrameReader;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Hello;
import dev.tether.protocol.Ping;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.Welcome;
import dev.tether.spi.Scheduler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One server connection under {@link EmbeddedChannel}, on the channel's frozen clock: the clock
 * moves only when a test advances it, so deadlines are asserted to the millisecond, without sleeps.
 */
class ServerConnectionTest {
  private static final Duration READER_IDLE = Duration.ofSeconds(20);
  private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  /** Service work waits here until a test runs it, so requests stay in flight on demand. */
  private final Queue<Runnable> serviceWork = new ArrayDeque<>();

  /** Service calls that ran, whichever executor task ran them. */
  private int serviceRuns;

  private final List<TetherEvent.Kind> events = new ArrayList<>();
  private final List<Long> closedWithServed = new ArrayList<>();
  private final ByteBuf written = Unpooled.buffer();
  private EmbeddedChannel channel;
  private boolean prefaceSkipped;

  /** The in-flight limit the host's WELCOME announces. */
  private int maxConcurrentRequests = 10_000;

  /** The host's connection age; off unless a test sets it before open(). */
  private ConnectionAge connectionAge = ConnectionAge.off();

  private int agedReported;

  @AfterEach
  void release() {
    channel.finishAndReleaseAll();
    written.release();
  }

  /** A connection whose host reports into this test, its timers on the channel's own clock. */
  private void open() {
    channel = new EmbeddedChannel();
    channel.freezeTime();
    Scheduler onChannelClock =
        (task, delayNanos) -> {
          ScheduledFuture<?> f =
              channel.eventLoop().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
          return () -> f.cancel(false);
        };
    ServerClock clock =
        new ServerClock(() -> channel.eventLoop().ticker().nanoTime(), onChannelClock);
    Dispatcher dispatcher =
        new Dispatcher(
            Map.of(
                "echo",
                new RawServiceHandler(
                    (op, payload, ctx) -> {
                      serviceRuns++;
                      return payload;
                    })),
            ExecutionMode.EXECUTOR,
            serviceWork::add,
            clock::nanoTime);
    ConnectionHost host =
        new ConnectionHost() {
          @Override
          public Dispatcher dispatcher() {
            return dispatcher;
          }

          @Override
          public StreamRegistry streams() {
            return StreamRegistry.none();
          }

          @Override
          public Welcome welcome() {
            return new Welcome(
                "server-1", "1.0", 3000, 1 << 20, maxConcurrentRequests, "", List.of());
          }

          @Override
          public ServerClock clock() {
            return clock;
          }

          @Override
          public long readerIdleNanos() {
            return READER_IDLE.toNanos();
          }

          @Override
          public long handshakeTimeoutNanos() {
            return HANDSHAKE_TIMEOUT.toNanos();
          }

          @Override
          public ConnectionAge connectionAge() {
            return connectionAge;
          }

          @Override
          public void connectionAged() {
            agedReported++;
          }

          @Override
          public void emit(TetherEvent.Kind kind, Channel ch, String detail, Throwable cause) {
            events.add(kind);
          }

          @Override
          public void connectionClosed(ServerConnection connection, long served) {
            closedWithServed.add(served);
          }
        };
    channel
        .pipeline()
        .addLast(new FrameDecoder(FrameDecoder.Side.SERVER, 1 << 20))
        .addLast(FrameEncoder.INSTANCE)
        .addLast(new ServerConnection(host, channel, BodyCompression.disabled()));
  }

  private void send(Frame... frames) {
    ByteBuf in = Unpooled.buffer();
    for (Frame f : frames) {
      FrameWriter.encode(f, in);
    }
    channel.writeInbound(in);
    channel.runPendingTasks();
  }

  private void handshake() {
    ByteBuf preface = Unpooled.buffer();
    FrameWriter.writePreface(preface);
    channel.writeInbound(preface);
    send(new Hello("client-1", 1 << 20));
  }

  private static Request echo(int id, String text) {
    return new Request(id, 0, "echo", "echo", 0, Map.of(), text.getBytes(StandardCharsets.UTF_8));
  }

  /** Every frame the connection wrote since the last call. */
  private List<Frame> received() {
    channel.runPendingTasks();
    ByteBuf out;
    while ((out = channel.readOutbound()) != null) {
      written.writeBytes(out);
      out.release();
    }
    if (!prefaceSkipped && written.readableBytes() >= ProtocolVersion.PREFACE_LENGTH) {
      written.skipBytes(ProtocolVersion.PREFACE_LENGTH);
      prefaceSkipped = true;
    }
    List<Frame> frames = new ArrayList<>();
    while (written.readableBytes() >= 4
        && written.readableBytes() >= 4 + written.getInt(written.readerIndex())) {
      frames.add(FrameReader.decode(written.readSlice(written.readInt())));
    }
    return frames;
  }

  private void advance(Duration d) {
    channel.advanceTimeBy(d.toNanos(), TimeUnit.NANOSECONDS);
    channel.runScheduledPendingTasks();
    channel.runPendingTasks();
  }

  private void runServiceWork() {
    Runnable task;
    while ((task = serviceWork.poll()) != null) {
      task.run();
    }
  }

  @Test
  void helloIsAnsweredWithWelcomeAndReportedAsAccepted() {
    open();
    handshake();

    assertThat(received())
        .singleElement()
        .isInstanceOfSatisfying(Welcome.class, w -> assertThat(w.serverId()).isEqualTo("server-1"));
    assertThat(events).containsExactly(TetherEvent.Kind.ACCEPTED);
  }

  @Test
  void requestsAreAnsweredByIdOnceTheServiceRuns() {
    open();
    handshake();
    received();

    send(echo(1, "one"), echo(2, "two"));
    assertThat(received()).isEmpty();
    runServiceWork();

    assertThat(received())
        .extracting(
            f -> ((Response) f).requestId(),
            f -> new String(((Response) f).body(), StandardCharsets.UTF_8))
        .containsExactly(tuple(1, "one"), tuple(2, "two"));
  }

  @Test
  void helloReadBeforeTheServerAdmitsTheConnectionIsAnsweredOnceItDoes() {
    open();
    ServerConnection connection = channel.pipeline().get(ServerConnection.class);
    connection.awaitAdmission();
    // An embedded channel delivers reads whatever autoRead says: as TLS does during its handshake.
    handshake();
    send(echo(1, "early"));
    assertThat(received()).isEmpty();
    assertThat(serviceWork).isEmpty();

    connection.admit();
    channel.runPendingTasks();

    assertThat(received()).singleElement().isInstanceOf(Welcome.class);
    assertThat(serviceWork).hasSize(1);
    assertThat(channel.config().isAutoRead()).isTrue();
  }

  @Test
  void refusedConnectionAnswersHelloWithGoAwayAndClosesAtTheHandshakeDeadline() {
    open();
    ServerConnection connection = channel.pipeline().get(ServerConnection.class);
    connection.awaitAdmission();
    connection.refuse("too many connections");
    channel.runPendingTasks();

    handshake();
    send(echo(1, "never runs"));

    assertThat(received())
        .singleElement()
        .isInstanceOfSatisfying(
            GoAway.class,
            g -> {
              assertThat(g.reason()).isEqualTo(GoAwayReason.TOO_MANY_CONNECTIONS);
              assertThat(g.message()).isEqualTo("too many connections");
            });
    assertThat(serviceWork).isEmpty();
    assertThat(events).containsExactly(TetherEvent.Kind.GOAWAY_SENT);
    advance(HANDSHAKE_TIMEOUT.minusMillis(1));
    assertThat(channel.isOpen()).as("waiting for the client to close").isTrue();
    advance(Duration.ofMillis(1));
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void aReadBurstOfRequestsWakesOneExecutorWorkerForThemAll() {
    open();
    handshake();
    received();

    send(echo(1, "a"), echo(2, "b"), echo(3, "c"));

    assertThat(serviceWork).as("one wake-up for the burst").hasSize(1);
    runServiceWork();
    assertThat(serviceRuns).isEqualTo(3);
    channel.runPendingTasks();
    assertThat(received()).extracting(f -> ((Response) f).requestId()).containsExactly(1, 2, 3);
  }

  @Test
  void requestsPastTheAnnouncedInFlightLimitAreRefusedAndOnewaysDroppedWithoutRunning() {
    maxConcurrentRequests = 2;
    open();
    handshake();
    received();

    send(
        echo(1, "a"),
        echo(2, "b"),
        echo(3, "c"),
        new Request(4, Request.ONEWAY, "echo", "echo", 0, Map.of(), new byte[0]));

    assertThat(received())
        .singleElement()
        .isInstanceOfSatisfying(
            Response.class,
            r -> {
              assertThat(r.requestId()).isEqualTo(3);
              assertThat(r.status()).isEqualTo(Status.REFUSED);
            });
    runServiceWork();
    assertThat(serviceRuns).as("only the first two run").isEqualTo(2);
    assertThat(received()).extracting(f -> ((Response) f).requestId()).containsExactly(1, 2);

    send(echo(5, "d"));
    runServiceWork();
    assertThat(serviceRuns).as("answered calls free their slots").isEqualTo(3);
  }

  @Test
  void drainSendsGoAwayWithTheLastAcceptedIdFinishesThatWorkAndRefusesLaterRequests() {
    open();
    handshake();
    received();
    send(echo(7, "accepted"));
    ServerConnection connection = channel.pipeline().get(ServerConnection.class);

    connection.beginDrain();
    channel.runPendingTasks();
    send(echo(8, "too late"));
    runServiceWork();

    List<Frame> frames = received();
    assertThat(frames.get(0))
        .isInstanceOfSatisfying(
            GoAway.class,
            g -> {
              assertThat(g.reason()).isEqualTo(GoAwayReason.SHUTDOWN);
              assertThat(g.lastAcceptedId()).isEqualTo(7);
            });
    assertThat(frames.subList(1, 3))
        .extracting(f -> ((Response) f).requestId(), f -> ((Response) f).status())
        .containsExactlyInAnyOrder(tuple(8, Status.REFUSED), tuple(7, Status.OK));
    assertThat(events).containsExactly(TetherEvent.Kind.ACCEPTED, TetherEvent.Kind.GOAWAY_SENT);
    assertThat(channel.isOpen())
        .as("the client closes a drained connection, not the server")
        .isTrue();
  }

  @Test
  void clientSilentForTheReaderIdleGetsGoAwayAndIsClosedNotAMillisecondEarlier() {
    open();
    handshake();
    received();

    advance(READER_IDLE.minusMillis(1));
    assertThat(channel.isOpen()).isTrue();
    assertThat(received()).isEmpty();

    advance(Duration.ofMillis(1));
    assertThat(received())
        .singleElement()
        .isInstanceOfSatisfying(
            GoAway.class, g -> assertThat(g.reason()).isEqualTo(GoAwayReason.IDLE_TIMEOUT));
    assertThat(channel.isOpen()).isFalse();
    assertThat(events).containsExactly(TetherEvent.Kind.ACCEPTED, TetherEvent.Kind.GOAWAY_SENT);
    assertThat(closedWithServed).containsExactly(0L);
  }

  @Test
  void everyReadPushesTheReaderIdleDeadlineBack() {
    open();
    handshake();

    advance(Duration.ofSeconds(15));
    send(new Ping(42L));
    advance(Duration.ofSeconds(15));
    assertThat(channel.isOpen()).as("30 s after the handshake, 15 s after the ping").isTrue();

    advance(Duration.ofSeconds(5).minusMillis(1));
    assertThat(channel.isOpen()).isTrue();
    advance(Duration.ofMillis(1));
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void peerThatNeverSendsHelloIsClosedAtTheHandshakeDeadline() {
    open();
    ByteBuf preface = Unpooled.buffer();
    FrameWriter.writePreface(preface);
    channel.writeInbound(preface);

    advance(HANDSHAKE_TIMEOUT.minusMillis(1));
    assertThat(channel.isOpen()).isTrue();
    advance(Duration.ofMillis(1));

    assertThat(channel.isOpen()).isFalse();
    assertThat(events).as("never accepted").isEmpty();
    assertThat(closedWithServed).containsExactly(0L);
  }

  @Test
  void handshakeDeadlineLeavesAWelcomedConnectionAlone() {
    open();
    advance(HANDSHAKE_TIMEOUT.minusSeconds(1));
    handshake();

    advance(Duration.ofSeconds(5));

    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void statusCountsAreKeptOnTheLoopAsRequestsComeAndGo() {
    open();
    handshake();
    ServerConnection connection = channel.pipeline().get(ServerConnection.class);

    send(
        echo(1, "a"),
        echo(2, "b"),
        new Request(3, Request.ONEWAY, "echo", "echo", 0, Map.of(), new byte[0]));
    assertThat(connection.inFlight()).isEqualTo(3);
    assertThat(connection.served()).isZero();

    runServiceWork();
    received();
    assertThat(connection.inFlight()).isZero();
    assertThat(connection.served()).isEqualTo(3);
  }

  // ---- maximum connection age ----

  private static final Duration AGE = Duration.ofSeconds(10);
  private static final long SEED = 23;

  /** The age the connection draws from a Random seeded like the host's. */
  private static Duration drawnAge() {
    return Duration.ofNanos(AgeJitter.at(AGE.toNanos(), new java.util.Random(SEED).nextDouble()));
  }

  private static String agedWhy() {
    return "max connection age reached (" + drawnAge().toMillis() + " ms)";
  }

  private void openAging(Duration grace) {
    connectionAge = new ConnectionAge(AGE.toNanos(), grace.toNanos(), new java.util.Random(SEED));
    open();
  }

  @Test
  void connectionPastItsAgeIsToldMaxAgeAndStillServesWhatItsClientSendsAfter() {
    openAging(Duration.ZERO);
    handshake();
    received();

    advance(drawnAge().minusMillis(1));
    assertThat(received()).as("not aged yet").isEmpty();
    advance(Duration.ofMillis(1));
    assertThat(received())
        .singleElement()
        .isEqualTo(new GoAway(GoAwayReason.MAX_AGE, GoAway.UNTIL_FURTHER_NOTICE, agedWhy()));
    assertThat(events).containsExactly(TetherEvent.Kind.ACCEPTED, TetherEvent.Kind.CONNECTION_AGED);
    assertThat(agedReported).isEqualTo(1);

    send(echo(1, "sent before the client read the GOAWAY"));
    runServiceWork();
    assertThat(received())
        .singleElement()
        .isInstanceOfSatisfying(Response.class, r -> assertThat(r.status()).isEqualTo(Status.OK));
    advance(READER_IDLE.minusMillis(1));
    assertThat(channel.isOpen()).as("without a grace, served until the client closes").isTrue();
  }

  @Test
  void agedConnectionClosesAtTheEndOfItsGraceNamingTheLastRequestServed() {
    openAging(Duration.ofSeconds(5));
    handshake();
    received();
    advance(drawnAge());
    received();
    send(echo(4, "within the grace"));
    runServiceWork();
    assertThat(received()).singleElement().isInstanceOf(Response.class);

    advance(Duration.ofSeconds(5).minusMillis(1));
    assertThat(channel.isOpen()).isTrue();
    advance(Duration.ofMillis(1));
    assertThat(received())
        .singleElement()
        .isEqualTo(new GoAway(GoAwayReason.MAX_AGE, 4, "max connection age grace is over"));
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void connectionOfAServerNoLongerPrimaryIsToldToMoveAndStillServesWhatItsClientSends() {
    open();
    handshake();
    received();

    channel.pipeline().get(ServerConnection.class).noLongerPrimary("no longer the primary");
    channel.runPendingTasks();
    assertThat(received())
        .singleElement()
        .isEqualTo(
            new GoAway(GoAwayReason.MAX_AGE, GoAway.UNTIL_FURTHER_NOTICE, "no longer the primary"));
    assertThat(events).containsExactly(TetherEvent.Kind.ACCEPTED, TetherEvent.Kind.CONNECTION_AGED);
    assertThat(agedReported).as("not moved for its age").isZero();

    send(echo(1, "sent before the client read the GOAWAY"));
    runServiceWork();
    assertThat(received())
        .singleElement()
        .isInstanceOfSatisfying(Response.class, r -> assertThat(r.status()).isEqualTo(Status.OK));
    assertThat(channel.isOpen()).as("without a grace, served until the client closes").isTrue();
  }

  @Test
  void movedForTheServersRoleAConnectionGetsTheGraceFromThenAndNeverAges() {
    openAging(Duration.ofSeconds(5));
    handshake();
    received();
    advance(drawnAge().minusSeconds(4));

    channel.pipeline().get(ServerConnection.class).noLongerPrimary("no longer the primary");
    channel.runPendingTasks();
    assertThat(received()).singleElement().isInstanceOf(GoAway.class);
    send(echo(3, "within the grace"));
    runServiceWork();
    assertThat(received()).singleElement().isInstanceOf(Response.class);

    advance(Duration.ofSeconds(5).minusMillis(1));
    assertThat(received()).as("its age passed meanwhile: no second notice").isEmpty();
    assertThat(channel.isOpen()).isTrue();
    advance(Duration.ofMillis(1));
    assertThat(received())
        .singleElement()
        .isEqualTo(new GoAway(GoAwayReason.MAX_AGE, 3, "max connection age grace is over"));
    assertThat(channel.isOpen()).isFalse();
    assertThat(agedReported).isZero();
  }

  @Test
  void shutdownOfAnAgedConnectionServesOnlyWhatItHadAccepted() {
    openAging(Duration.ZERO);
    handshake();
    received();
    advance(drawnAge());
    send(echo(1, "accepted while aged"));
    received();

    channel.pipeline().get(ServerConnection.class).beginDrain();
    channel.runPendingTasks();
    send(echo(2, "after the shutdown's GOAWAY"));
    runServiceWork();

    assertThat(received())
        .extracting(f -> f instanceof Response r ? r.status() : ((GoAway) f).reason())
        .containsExactlyInAnyOrder(GoAwayReason.SHUTDOWN, Status.REFUSED, Status.OK);
  }

  @Test
  void clientOlderThanProtocol1Dot2IsToldShutdownAtItsAgeAndStillServed() {
    openAging(Duration.ZERO);
    channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {'T', 'E', 'T', 'H', 1, 1, 0, 0}));
    send(new Hello("client-1", 1 << 20));
    received();
    advance(drawnAge());

    assertThat(received())
        .singleElement()
        .isEqualTo(new GoAway(GoAwayReason.SHUTDOWN, GoAway.UNTIL_FURTHER_NOTICE, agedWhy()));
    send(echo(9, "still served"));
    runServiceWork();
    assertThat(received()).singleElement().isInstanceOf(Response.class);
  }

  @Test
  void connectionsNeverAgeByDefault() {
    open();
    handshake();
    received();
    for (int minute = 0; minute < 24 * 60; minute++) {
      advance(READER_IDLE.minusSeconds(1));
      send(new Ping(minute)); // a live client: only an age could end the connection
    }
    assertThat(received()).noneMatch(f -> f instanceof GoAway);
    assertThat(events).doesNotContain(TetherEvent.Kind.CONNECTION_AGED);
  }
}
