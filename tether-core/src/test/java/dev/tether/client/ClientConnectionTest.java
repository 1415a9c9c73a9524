package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectTimeoutException;
import dev.tether.ConnectionState;
import dev.tether.Endpoint;
import dev.tether.InvocationMode;
import dev.tether.Resolver;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.FrameReader;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Ping;
import dev.tether.protocol.Request;
import dev.tether.protocol.Welcome;
import dev.tether.spi.Scheduler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelProgressivePromise;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client connection handler under an {@link EmbeddedChannel}: its timers on a manual scheduler
 * and ticker, its frames written and read by hand, no socket.
 */
class ClientConnectionTest {
  private final AtomicLong nowNanos = new AtomicLong(1_000_000_000L);
  private final List<Timer> timers = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final ClientRuntime runtime =
      new ClientRuntime(
          ClientConfig.from(new Properties()),
          Resolver.system(),
          null,
          nowNanos::get,
          this::schedule,
          new Random(7),
          (host, settings) -> null,
          List.of(events::add),
          null);

  /** One task the manual scheduler holds until the test fires it. */
  private static final class Timer {
    final Runnable task;
    final long delayNanos;
    boolean cancelled;

    Timer(Runnable task, long delayNanos) {
      this.task = task;
      this.delayNanos = delayNanos;
    }
  }

  private Scheduler.Cancellable schedule(Runnable task, long delayNanos) {
    Timer t = new Timer(task, delayNanos);
    timers.add(t);
    return () -> t.cancelled = true;
  }

  @AfterEach
  void stop() {
    runtime.shutdown().awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  private ClientConnection connectionWithConnectTimeout(Duration connectTimeout) {
    ProxySettings settings =
        ProxySettings.of(
            "svc",
            InvocationMode.TWOWAY,
            false,
            List.of(Endpoint.parse("tcp -h 127.0.0.1 -p 9 -t 5000")));
    Candidate resolved = runtime.select(settings).get(0);
    Candidate c =
        new Candidate(
            resolved.endpoint(),
            resolved.transport(),
            resolved.address(),
            resolved.timeout(),
            connectTimeout);
    return (ClientConnection) runtime.connections().newConnection(c, c.key(""));
  }

  private static ByteBuf fromServer(dev.tether.protocol.Frame... frames) {
    ByteBuf buf = Unpooled.buffer();
    FrameWriter.writePreface(buf);
    for (dev.tether.protocol.Frame f : frames) {
      FrameWriter.encode(f, buf);
    }
    return buf;
  }

  /** The one frame the connection wrote next, decoded. */
  private static dev.tether.protocol.Frame written(EmbeddedChannel ch) {
    ByteBuf buf = ch.readOutbound();
    try {
      int length = buf.readInt();
      return FrameReader.decode(buf.readSlice(length));
    } finally {
      buf.release();
    }
  }

  private static Welcome welcome() {
    return new Welcome("server-1", "1.0", 20_000, 1 << 20, 10_000, "", List.of());
  }

  @Test
  void handshakeDeadlineClosesAConnectionWhoseServerNeverWelcomes() throws Exception {
    ClientConnection c = connectionWithConnectTimeout(Duration.ofMillis(300));
    EmbeddedChannel ch = new EmbeddedChannel(c.initializer());
    assertThat((ByteBuf) ch.readOutbound()).as("preface and HELLO").isNotNull();
    c.onTransportConnected();
    assertThat(timers)
        .singleElement()
        .satisfies(t -> assertThat(t.delayNanos).isEqualTo(300_000_000L));

    timers.get(0).task.run();
    ch.runPendingTasks();

    assertThat(ch.isOpen()).isFalse();
    assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
    assertThat(c.ready()).isCompletedExceptionally();
    try {
      c.ready().get();
    } catch (ExecutionException e) {
      assertThat(e.getCause())
          .isInstanceOf(ConnectTimeoutException.class)
          .hasMessageContaining("no handshake");
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.CONNECT_FAILED));
  }

  @Test
  void transportConnectTimingOutWithoutAnEndpointConnectTimeoutFailsTheAttemptWithConnectTimeout()
      throws Exception {
    // A listener whose accept queue is full drops further SYNs: a connect to it stays pending
    // until the transport's own limit (no "-t" on the endpoint) ends it on the manual scheduler.
    try (java.net.ServerSocket full =
            new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"));
        java.net.Socket first = new java.net.Socket()) {
      first.connect(full.getLocalSocketAddress(), 5000);
      java.util.List<java.net.Socket> fillers = new ArrayList<>();
      try {
        ProxySettings settings =
            ProxySettings.of(
                "svc",
                InvocationMode.TWOWAY,
                false,
                List.of(Endpoint.parse("tcp -h 127.0.0.1 -p " + full.getLocalPort())));
        Candidate candidate = runtime.select(settings).get(0);
        assertThat(candidate.connectTimeout()).isNull();
        for (int i = 0; i < 4; i++) { // fill the accept queue whatever its slack
          java.net.Socket s = new java.net.Socket();
          fillers.add(s);
          try {
            s.connect(full.getLocalSocketAddress(), 200);
          } catch (java.net.SocketTimeoutException queueFull) {
            break;
          }
        }
        ClientConnection c =
            (ClientConnection) runtime.connections().newConnection(candidate, candidate.key(""));
        c.connect();
        Timer limit =
            timers.stream()
                .filter(t -> t.delayNanos == Duration.ofSeconds(30).toNanos())
                .findFirst()
                .orElseThrow();
        assertThat(c.ready()).isNotDone();

        limit.task.run();

        await().atMost(Duration.ofSeconds(5)).until(() -> c.ready().isDone());
        assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
        try {
          c.ready().get();
        } catch (ExecutionException e) {
          assertThat(e.getCause())
              .isInstanceOf(ConnectTimeoutException.class)
              .hasMessageContaining("timed out after 30000 ms");
        }
      } finally {
        for (java.net.Socket s : fillers) {
          s.close();
        }
      }
    }
  }

  @Test
  void welcomeMakesTheConnectionActiveAndCallsOffTheHandshakeDeadline() {
    ClientConnection c = connectionWithConnectTimeout(Duration.ofSeconds(1));
    EmbeddedChannel ch = new EmbeddedChannel(c.initializer());
    c.onTransportConnected();

    ch.writeInbound(fromServer(welcome()));

    assertThat(c.state()).isEqualTo(ConnectionState.ACTIVE);
    assertThat(c.ready()).isCompletedWithValue(c);
    assertThat(c.welcome().serverId()).isEqualTo("server-1");
    assertThat(timers.get(0).cancelled).isTrue();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.CONNECTED));
  }

  @Test
  void aConnectionThatClosedAfterItsWelcomeRefusesNoStreamAndThrowsNothing() {
    ClientConnection c = connectionWithConnectTimeout(Duration.ofSeconds(1));
    EmbeddedChannel ch = new EmbeddedChannel(c.initializer());
    c.onTransportConnected();
    ch.writeInbound(fromServer(welcome()));
    assertThat(StreamCapability.refusalOf(c)).as("open, to a server of this protocol").isNull();

    // A resuming stream checks the connection it awaited after that became ready; it may have
    // closed in between, its handlers removed. A throw here left the stream resuming forever.
    ch.close();
    ch.runPendingTasks();

    assertThat(StreamCapability.refusalOf(c)).as("closed").isNull();
  }

  @Test
  void heartbeatChecksRunOnTheInjectedSchedulerOnceTheConnectionIsActive() {
    ClientConnection c = connectionWithConnectTimeout(null);
    EmbeddedChannel ch = new EmbeddedChannel(c.initializer());
    ch.writeInbound(fromServer(welcome()));
    assertThat(timers)
        .as("the first liveness check, at readerIdle")
        .singleElement()
        .satisfies(t -> assertThat(t.delayNanos).isEqualTo(Duration.ofSeconds(3).toNanos()));
    ((ByteBuf) ch.readOutbound()).release(); // preface and HELLO

    nowNanos.addAndGet(Duration.ofSeconds(3).toNanos());
    timers.get(0).task.run();
    ch.runPendingTasks();

    assertThat(written(ch)).isInstanceOf(Ping.class);
  }

  @Test
  void pingFromTheServerIsAnsweredWithPong() {
    ClientConnection c = connectionWithConnectTimeout(null);
    EmbeddedChannel ch = new EmbeddedChannel(c.initializer());
    ((ByteBuf) ch.readOutbound()).release(); // preface and HELLO
    ch.writeInbound(fromServer(welcome(), new Ping(42)));
    assertThat(written(ch)).isEqualTo(new dev.tether.protocol.Pong(42));
  }

  @Test
  void requestFromTheServerIsAProtocolErrorThatClosesOnlyThisConnection() {
    ClientConnection c = connectionWithConnectTimeout(null);
    EmbeddedChannel ch = new EmbeddedChannel(c.initializer());
    ch.writeInbound(
        fromServer(welcome(), new Request(1, 0, "svc", "op", 0, Map.of(), new byte[0])));
    ch.runPendingTasks();
    assertThat(ch.isOpen()).isFalse();
    assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e -> e.kind() == TetherEvent.Kind.CONNECTION_CLOSED && e.cause() != null));
  }

  /**
   * Stands in for the socket's side of a write: at the flush, each write reports all its bytes
   * taken, then succeeds; once {@code failing}, writes fail having taken nothing.
   */
  private static final class ScriptedWrites extends ChannelOutboundHandlerAdapter {
    boolean failing;
    private final List<Runnable> progressAtFlush = new ArrayList<>();

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (failing) {
        ReferenceCountUtil.release(msg);
        promise.tryFailure(new IOException("connection reset by peer"));
        return;
      }
      if (promise instanceof ChannelProgressivePromise progressive && msg instanceof ByteBuf buf) {
        long bytes = buf.readableBytes();
        progressAtFlush.add(() -> progressive.tryProgress(bytes, bytes));
      }
      ctx.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
      progressAtFlush.forEach(Runnable::run);
      progressAtFlush.clear();
      ctx.flush();
    }
  }

  private List<Invocation> sendBatch(ClientConnection c, EmbeddedChannel ch, int calls) {
    ProxySettings settings =
        ProxySettings.of(
            "svc",
            InvocationMode.TWOWAY,
            false,
            List.of(Endpoint.parse("tcp -h 127.0.0.1 -p 9 -t 5000")));
    List<Invocation> batch = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      Invocation inv = new Invocation(runtime.bind(settings), "debit", new byte[] {(byte) i}, 0);
      batch.add(inv);
      c.enqueue(inv);
    }
    ch.runPendingTasks(); // the loop's turn: one batch, one write
    return batch;
  }

  @Test
  void aBatchWhoseWriteFailsHasNoCallSentEvenWhenItReusesTheOutcomeOfAWholeBatchBeforeIt() {
    ClientConnection c = connectionWithConnectTimeout(null);
    ScriptedWrites socket = new ScriptedWrites();
    EmbeddedChannel ch = new EmbeddedChannel(socket, c.initializer());
    ch.writeInbound(fromServer(welcome()));
    ch.runPendingTasks();

    List<Invocation> whole = sendBatch(c, ch, 3);
    assertThat(whole).as("all of the first batch reached the kernel").allMatch(Invocation::wasSent);

    socket.failing = true;
    List<Invocation> lost = sendBatch(c, ch, 3);

    // Its frames end within as many bytes as the first batch's write took: an outcome reused with
    // that progress would count them as sent, and the at-most-once rule would refuse their retry.
    assertThat(lost).as("none of the failed batch left whole").noneMatch(Invocation::wasSent);
    assertThat(whole).allMatch(Invocation::wasSent);
  }
}
