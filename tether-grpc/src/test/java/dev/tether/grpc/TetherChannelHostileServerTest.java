package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static dev.tether.grpc.ScriptedHttp2Server.bytes;
import static dev.tether.grpc.ScriptedHttp2Server.ok;
import static dev.tether.grpc.ScriptedHttp2Server.trailers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.common.util.concurrent.ListenableFuture;
import dev.tether.ConnectionLostException;
import dev.tether.EndpointSelection;
import dev.tether.Tether;
import dev.tether.observe.ConnectionStatus;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tether's channel against sick and hostile gRPC servers (a scripted HTTP/2 server on loopback):
 * every call ends, by its deadline at the latest, with the status gRPC gives such an answer; the
 * client neither dials nor retries in a tight loop, buffers no more than a message's limit, and
 * leaves no call or connection behind.
 */
@Timeout(60)
class TetherChannelHostileServerTest {
  private final Tether tether = Tether.create();
  private final List<AutoCloseable> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdown();
      assertThat(c.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    tether.close();
    for (AutoCloseable s : servers) {
      s.close();
    }
  }

  private ScriptedHttp2Server server(Http2Settings settings, ScriptedHttp2Server.Script script)
      throws InterruptedException {
    ScriptedHttp2Server s = new ScriptedHttp2Server(settings, script);
    servers.add(s);
    return s;
  }

  private ScriptedHttp2Server server(ScriptedHttp2Server.Script script)
      throws InterruptedException {
    return server(null, script);
  }

  private ManagedChannel channelTo(String... endpoints) {
    ManagedChannel c =
        TetherGrpc.channel(
            tether
                .proxy("counting:" + String.join(":", endpoints))
                .withEndpointSelection(EndpointSelection.ORDERED));
    channels.add(c);
    return c;
  }

  private static String at(int port) {
    return "tcp -h 127.0.0.1 -p " + port;
  }

  private ManagedChannel channelTo(ScriptedHttp2Server s) {
    return channelTo(at(s.port()));
  }

  private static Status failureOf(
      ManagedChannel c, MethodDescriptor<byte[], byte[]> method, long deadlineMillis) {
    StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () ->
                ClientCalls.blockingUnaryCall(
                    c,
                    method,
                    CallOptions.DEFAULT.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS),
                    text("x")));
    assertThat(e).as("the call failed").isNotNull();
    return e.getStatus();
  }

  private static Status failureOf(ManagedChannel c) {
    return failureOf(c, CountingService.CALL, 5_000);
  }

  /** No call is left in flight on any of the runtime's connections. */
  private void noCallStuck() {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                tether.status().connections().stream().mapToInt(ConnectionStatus::inFlight).sum()
                    == 0);
  }

  // ---- refusals and GOAWAY ----

  @Test
  void aServerRefusingEveryStreamEndsTheCallAfterFewAttempts() throws Exception {
    ScriptedHttp2Server s = server((peer, id) -> peer.refuse(id));

    Status status = failureOf(channelTo(s));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.streams.get()).isBetween(1, 10);
    assertThat(s.dials.get()).isBetween(1, 5);
    noCallStuck();
  }

  @Test
  void aServerGoingAwayOnEveryConnectionIsNotDialedInATightLoop() throws Exception {
    ScriptedHttp2Server s = server((peer, id) -> peer.goAway(0));

    Status status = failureOf(channelTo(s));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.dials.get()).isBetween(1, 5);
    assertThat(s.streams.get()).isBetween(1, 10);
    noCallStuck();
  }

  @Test
  void aGoAwayFollowedBySilenceEndsByTheDeadlineAndTheConnectionThenCloses() throws Exception {
    ScriptedHttp2Server s = server((peer, id) -> peer.goAway(id));

    Status status = failureOf(channelTo(s), CountingService.CALL, 1_000);

    assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.resets.get() == 1);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.openConnections() == 0);
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> tether.status().connections().isEmpty());
  }

  @Test
  void aGoAwayAboveEveryStreamSentLetsTheCallFinishThere() throws Exception {
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.goAway(1001);
              peer.headers(id, ok(), false);
              peer.message(id, 2, bytes("ok"), false);
              peer.headers(id, trailers("0"), true);
            });

    String answer =
        text(
            ClientCalls.blockingUnaryCall(
                channelTo(s),
                CountingService.CALL,
                CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS),
                text("x")));

    assertThat(answer).isEqualTo("ok");
    assertThat(s.streams.get()).isEqualTo(1);
  }

  @Test
  void twoGoAwaysWithRisingIdsEndTheCallOnceAndTheConnection() throws Exception {
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.rawGoAway(id);
              peer.rawGoAway(id + 2);
            });

    Status status = failureOf(channelTo(s));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(s.streams.get()).isEqualTo(1);
    noCallStuck();
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.openConnections() == 0);
  }

  // ---- handshake and limits ----

  @Test
  void aServerWhoseSettingsNeverArriveIsLeftForTheNextEndpointAtTheConnectTimeout()
      throws Exception {
    ScriptedHttp2Server stalled = ScriptedHttp2Server.silent();
    servers.add(stalled);
    CountingService b = new CountingService("b");
    Server good =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(b.definition())
            .build()
            .start();
    servers.add(() -> good.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
    ManagedChannel channel = channelTo(at(stalled.port()) + " -t 500", at(good.getPort()));

    String answer =
        text(
            ClientCalls.blockingUnaryCall(
                channel,
                CountingService.CALL,
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                text("x")));

    assertThat(answer).isEqualTo("b");
    assertThat(b.calls.get()).isEqualTo(1);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> stalled.openConnections() == 0);
  }

  @Test
  void aServerAllowingNoStreamsIsNotDialedWithoutEnd() throws Exception {
    ScriptedHttp2Server s =
        server(
            Http2Settings.defaultSettings().maxConcurrentStreams(0), (peer, id) -> peer.refuse(id));

    Status status = failureOf(channelTo(s), CountingService.CALL, 2_000);

    assertThat(status.getCode()).isIn(Status.Code.DEADLINE_EXCEEDED, Status.Code.UNAVAILABLE);
    assertThat(s.streams.get()).isZero();
    assertThat(s.dials.get()).isBetween(1, 5);
    noCallStuck();
  }

  // ---- answers ----

  @Test
  void anAnswerWithoutStatusPseudoHeaderFailsInternal() throws Exception {
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(
                  id, new DefaultHttp2Headers().set("content-type", "application/grpc"), false);
              peer.message(id, 2, bytes("ok"), false);
              peer.headers(id, trailers("0"), true);
            });

    assertThat(failureOf(channelTo(s)).getCode()).isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void anAnswerWhoseContentTypeIsNotGrpcFailsUnknown() throws Exception {
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(
                  id,
                  new DefaultHttp2Headers().status("200").set("content-type", "text/html"),
                  false);
              peer.message(id, 2, bytes("ok"), false);
              peer.headers(id, trailers("0"), true);
            });

    assertThat(failureOf(channelTo(s)).getCode()).isEqualTo(Status.Code.UNKNOWN);
  }

  @Test
  void anAnswerEndedByDataWithoutTrailersFailsInternal() throws Exception {
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(id, ok(), false);
              peer.message(id, 2, bytes("ok"), true);
            });

    assertThat(failureOf(channelTo(s)).getCode()).isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void aGrpcStatusThatIsNotANumberFailsInternal() throws Exception {
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(id, ok(), false);
              peer.message(id, 2, bytes("ok"), false);
              peer.headers(id, trailers("zero"), true);
            });

    assertThat(failureOf(channelTo(s)).getCode()).isEqualTo(Status.Code.INTERNAL);
  }

  @Test
  void aMessagePrefixOfTwoGibibytesFailsResourceExhaustedAndResetsTheStream() throws Exception {
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(id, ok(), false);
              peer.message(id, 0x8000_0000L, bytes("tiny"), false);
            });

    assertThat(failureOf(channelTo(s)).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.resets.get() == 1);
    noCallStuck();
  }

  @Test
  void aUnaryAnswerOfEndlessMessagesFailsAtTheSecondMessageInsteadOfBufferingThem()
      throws Exception {
    byte[] quarterMiB = new byte[256 * 1024];
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(id, ok(), false);
              // 16 MiB queued: the client's window lets it all through unless the client stops it.
              for (int i = 0; i < 64; i++) {
                peer.message(id, quarterMiB.length, quarterMiB, false);
              }
            });

    Status status = failureOf(channelTo(s), CountingService.CALL, 10_000);

    assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(status.getDescription()).contains("more than one message");
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.resets.get() == 1);
    noCallStuck();
  }

  @Test
  void dataBeyondTheClientsWindowEndsTheStreamAndTheConnection() throws Exception {
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(id, ok(), false);
              peer.rawData(id, 2 * 1024 * 1024); // twice the window of a stream nobody reads
            });
    CompletableFuture<Status> closed = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call =
        channelTo(s)
            .newCall(
                CountingService.FLOOD, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.sendMessage(text("x"));
    call.halfClose(); // and never request(n): the window is all the server may send

    assertThat(closed.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.closed.get() >= 1);
    noCallStuck();
  }

  @Test
  void aPingFloodFromTheServerLeavesTheCallAnswered() throws Exception {
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              for (int i = 0; i < 20_000; i++) {
                peer.handler.encoder().writePing(peer.ctx, false, i, peer.ctx.newPromise());
              }
              peer.headers(id, ok(), false);
              peer.message(id, 2, bytes("ok"), false);
              peer.headers(id, trailers("0"), true);
            });

    String answer =
        text(
            ClientCalls.blockingUnaryCall(
                channelTo(s),
                CountingService.CALL,
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                text("x")));

    assertThat(answer).isEqualTo("ok");
  }

  private static void answer(ScriptedHttp2Server.Peer peer, int id) {
    peer.headers(id, ok(), false);
    peer.message(id, 2, bytes("ok"), false);
    peer.headers(id, trailers("0"), true);
  }

  private static String call(ManagedChannel c) {
    return text(
        ClientCalls.blockingUnaryCall(
            c,
            CountingService.CALL,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
            text("x")));
  }

  @Test
  void aGzipBombInAnAnswerFailsResourceExhausted() throws Exception {
    ByteArrayOutputStream packed = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(packed)) {
      byte[] zeros = new byte[1024 * 1024];
      for (int i = 0; i < 64; i++) {
        gz.write(zeros); // 64 MiB of zeros in some 64 KiB
      }
    }
    byte[] bomb = packed.toByteArray();
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(id, ok().set("grpc-encoding", "gzip"), false);
              peer.compressedMessage(id, bomb);
              peer.headers(id, trailers("0"), true);
            });

    assertThat(failureOf(channelTo(s)).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    noCallStuck();
  }

  @Test
  void endlessContinuationFramesEndTheCallAndTheConnection() throws Exception {
    ScriptedHttp2Server s = server((peer, id) -> peer.endlessContinuation(id, 400));

    Status status = failureOf(channelTo(s));

    assertThat(status.getCode()).isIn(Status.Code.UNAVAILABLE, Status.Code.INTERNAL);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.closed.get() >= 1);
    noCallStuck();
  }

  @Test
  void aServerLoweringItsStreamLimitBelowTheStreamsInFlightAnswersThemAll() throws Exception {
    AtomicInteger seen = new AtomicInteger();
    List<Integer> held = new ArrayList<>(); // the server loop's alone
    ScriptedHttp2Server s =
        server(
            Http2Settings.defaultSettings().maxConcurrentStreams(4),
            (peer, id) -> {
              if (seen.incrementAndGet() > 3) {
                answer(peer, id);
                return;
              }
              held.add(id);
              if (held.size() == 3) {
                peer.handler
                    .encoder()
                    .writeSettings(
                        peer.ctx,
                        new Http2Settings().maxConcurrentStreams(1),
                        peer.ctx.newPromise());
                held.forEach(h -> answer(peer, h));
              }
            });
    ManagedChannel channel = channelTo(s);
    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);

    for (int round = 0; round < 2; round++) {
      List<ListenableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        calls.add(
            ClientCalls.futureUnaryCall(channel.newCall(CountingService.CALL, options), text("x")));
      }
      for (ListenableFuture<byte[]> c : calls) {
        assertThat(text(c.get(10, TimeUnit.SECONDS))).isEqualTo("ok");
      }
    }
    assertThat(s.streams.get()).isEqualTo(6);
    noCallStuck();
  }

  @Test
  void aNonIdempotentCallWhoseServerHangsUpAfterTheWholeRequestFailsAndReachedItOnce()
      throws Exception {
    ScriptedHttp2Server s =
        server(
            new ScriptedHttp2Server.Script() {
              @Override
              public void onRequest(ScriptedHttp2Server.Peer peer, int streamId) {}

              @Override
              public void onData(ScriptedHttp2Server.Peer peer, int streamId, boolean end) {
                if (end) {
                  peer.ctx.close(); // the whole request is in: it may have run
                }
              }
            });
    ManagedChannel channel = channelTo(s);

    for (int i = 1; i <= 5; i++) {
      Status status = failureOf(channel);

      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getCause())
          .isInstanceOfSatisfying(
              ConnectionLostException.class, lost -> assertThat(lost.mayHaveExecuted()).isTrue());
      assertThat(s.streams.get()).isEqualTo(i);
    }
    noCallStuck();
  }

  @Test
  void unfinishedAnswersOnManyCallsAreBoundedPerConnectionAndTheCallPastTheBoundFails()
      throws Exception {
    // Five calls on one connection, each sent all but 1 KiB of a 4 MiB answer: four fit in the
    // connection's 16 MiB of held answers, the call whose bytes would pass it ends at once.
    int announced = 4 * 1024 * 1024;
    byte[] body = new byte[announced - 1024];
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(id, ok(), false);
              peer.message(id, announced, body, false);
            });
    ManagedChannel c = channelTo(s);
    List<ListenableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(
          ClientCalls.futureUnaryCall(
              c.newCall(
                  CountingService.CALL, CallOptions.DEFAULT.withDeadlineAfter(4, TimeUnit.SECONDS)),
              text("x")));
    }
    List<Status.Code> codes = new ArrayList<>();
    for (ListenableFuture<byte[]> call : calls) {
      codes.add(
          catchThrowableOfType(ExecutionException.class, () -> call.get(20, TimeUnit.SECONDS))
                      .getCause()
                  instanceof StatusRuntimeException e
              ? e.getStatus().getCode()
              : Status.Code.UNKNOWN);
    }

    assertThat(codes)
        .containsOnly(Status.Code.RESOURCE_EXHAUSTED, Status.Code.DEADLINE_EXCEEDED)
        .filteredOn(code -> code == Status.Code.RESOURCE_EXHAUSTED)
        .hasSize(1);
    assertThat(s.streams.get()).as("not retried").isEqualTo(5);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.resets.get() == 5);
    noCallStuck();
  }

  @Test
  void unfinishedStreamMessagesCountAgainstTheSameBoundAndTheStreamPastItFails() throws Exception {
    // A stream's message in progress earns window as it arrives (it may be larger than the
    // window), so five streams each sent all but 1 KiB of a 4 MiB message meet the same bound.
    int announced = 4 * 1024 * 1024;
    byte[] body = new byte[announced - 1024];
    ScriptedHttp2Server s =
        server(
            (peer, id) -> {
              peer.headers(id, ok(), false);
              peer.message(id, announced, body, false);
            });
    ManagedChannel c = channelTo(s);
    List<CompletableFuture<Status>> closed = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      CompletableFuture<Status> ended = new CompletableFuture<>();
      ClientCall<byte[], byte[]> call =
          c.newCall(
              CountingService.FLOOD, CallOptions.DEFAULT.withDeadlineAfter(4, TimeUnit.SECONDS));
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onClose(Status status, Metadata trailers) {
              ended.complete(status);
            }
          },
          new Metadata());
      call.sendMessage(text("x"));
      call.halfClose();
      call.request(1);
      closed.add(ended);
    }
    List<Status.Code> codes = new ArrayList<>();
    for (CompletableFuture<Status> ended : closed) {
      codes.add(ended.get(20, TimeUnit.SECONDS).getCode());
    }

    assertThat(codes)
        .containsOnly(Status.Code.RESOURCE_EXHAUSTED, Status.Code.DEADLINE_EXCEEDED)
        .filteredOn(code -> code == Status.Code.RESOURCE_EXHAUSTED)
        .hasSize(1);
    assertThat(s.streams.get()).as("not retried").isEqualTo(5);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.resets.get() == 5);
    noCallStuck();
  }
}
