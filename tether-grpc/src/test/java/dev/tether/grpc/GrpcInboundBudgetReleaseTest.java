package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a hostile or careless client leaves behind in the connection's inbound budget: every way a
 * stream ends gives its bytes back, bytes the service took are held no more, and the listener of
 * each call hears its events one at a time, in order, its last event last.
 */
@Timeout(60)
class GrpcInboundBudgetReleaseTest {
  private static final MethodDescriptor<byte[], byte[]> HELD =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(
              MethodDescriptor.generateFullMethodName(InteropService.SERVICE, "Held"))
          .setRequestMarshaller(TetherGrpc.rawBytes())
          .setResponseMarshaller(TetherGrpc.rawBytes())
          .build();

  /** Closes its call as soon as its client is done, which races with that client's reset. */
  private static final MethodDescriptor<byte[], byte[]> RACE =
      HELD.toBuilder()
          .setFullMethodName(
              MethodDescriptor.generateFullMethodName(InteropService.SERVICE, "Race"))
          .build();

  /** A call the test drives by hand, and what its listener heard, in order. */
  private record Held(ServerCall<byte[], byte[]> call, List<String> events) {}

  private final BlockingQueue<Held> calls = new LinkedBlockingQueue<>();
  private GrpcServices services;
  private TetherGrpcServerFixture grpc;

  @BeforeEach
  void start() {
    ServerServiceDefinition held =
        ServerServiceDefinition.builder(InteropService.SERVICE)
            .addMethod(
                HELD,
                (call, headers) -> {
                  List<String> events = new CopyOnWriteArrayList<>();
                  calls.add(new Held(call, events));
                  return new Recording(events);
                })
            .addMethod(
                RACE,
                (call, headers) -> {
                  List<String> events = new CopyOnWriteArrayList<>();
                  calls.add(new Held(call, events));
                  call.request(1);
                  return new Recording(events) {
                    @Override
                    public void onHalfClose() {
                      super.onHalfClose();
                      call.close(Status.OK, new Metadata());
                    }
                  };
                })
            .build();
    services = TetherGrpc.server().service(held);
    grpc = TetherGrpcServerFixture.start(services);
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
  }

  /** Records each event, and "overlap" when one starts while another runs. */
  private static class Recording extends ServerCall.Listener<byte[]> {
    private final List<String> events;
    private final AtomicBoolean running = new AtomicBoolean();

    Recording(List<String> events) {
      this.events = events;
    }

    private void heard(String event) {
      if (!running.compareAndSet(false, true)) {
        events.add("overlap");
      }
      events.add(event);
      running.set(false);
    }

    @Override
    public void onMessage(byte[] message) {
      heard("message");
    }

    @Override
    public void onHalfClose() {
      heard("halfClose");
    }

    @Override
    public void onCancel() {
      heard("cancel");
    }

    @Override
    public void onComplete() {
      heard("complete");
    }

    @Override
    public void onReady() {}
  }

  private int port() {
    return grpc.server().endpoints().get(0).port();
  }

  private long held() {
    return services.protocol().inboundBytesHeld();
  }

  private static ByteBuf messages(int count, int size) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < count; i++) {
      out.writeBytes(RawHttp2Socket.message(new byte[size]));
    }
    return Unpooled.wrappedBuffer(out.toByteArray());
  }

  private Held nextCall() throws InterruptedException {
    Held call = calls.poll(10, TimeUnit.SECONDS);
    assertThat(call).as("the service's call started").isNotNull();
    return call;
  }

  @Test
  void messagesTheServiceTookAfterItsClientHalfClosedAreHeldNoMoreWhileItsCallGoesOn()
      throws Exception {
    try (RawHttp2Client client = new RawHttp2Client(port())) {
      client.open(3, RawHttp2Socket.request("Held"), false);
      Held held = nextCall();
      int count = 8;
      int size = 64 * 1024;
      assertThat(client.send(3, messages(count, size), true).get(10, TimeUnit.SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> held() == count * (size + 5L));

      held.call().request(count);
      await().atMost(Duration.ofSeconds(10)).until(() -> held.events().contains("halfClose"));

      assertThat(held.events()).hasSize(count + 1);
      // The call goes on (a long answer stream, say): what its service took is the service's.
      await().atMost(Duration.ofSeconds(10)).until(() -> held() == 0);
      held.call().close(Status.OK, new Metadata());
      await().atMost(Duration.ofSeconds(10)).until(() -> held.events().contains("complete"));
    }
  }

  @Test
  void everyWayAStreamEndsGivesItsBytesBackAndItsListenerHearsItsEndLast() throws Exception {
    List<Held> ended = new ArrayList<>();
    try (RawHttp2Client client = new RawHttp2Client(port())) {
      // Reset in the middle of a message.
      client.open(3, RawHttp2Socket.request("Held"), false);
      Held midMessage = nextCall();
      ByteBuf half = messages(1, 100_000);
      assertThat(client.send(3, half.retainedSlice(0, 50_000)).get(10, TimeUnit.SECONDS)).isTrue();
      half.release();
      await().atMost(Duration.ofSeconds(10)).until(() -> held() == 50_000);
      client.reset(3);
      ended.add(midMessage);

      // Many small messages and the half-close, nobody asked for them, then a reset.
      client.open(5, RawHttp2Socket.request("Held"), false);
      Held unread = nextCall();
      assertThat(client.send(5, messages(1000, 10), true).get(10, TimeUnit.SECONDS)).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> held() == 0 || held() == 15_000);
      unread.call().request(3);
      client.reset(5);
      ended.add(unread);

      // Half-closed with messages nobody asked for, then its deadline passes.
      client.open(7, RawHttp2Socket.request("Held").set("grpc-timeout", "300m"), false);
      Held late = nextCall();
      assertThat(client.send(7, messages(100, 10), true).get(10, TimeUnit.SECONDS)).isTrue();
      late.call().request(1);
      ended.add(late);

      for (Held call : ended) {
        await().atMost(Duration.ofSeconds(10)).until(() -> call.events().contains("cancel"));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> held() == 0);
      for (Held call : ended) {
        List<String> events = call.events();
        assertThat(events).doesNotContain("overlap", "complete");
        assertThat(events).filteredOn("cancel"::equals).hasSize(1);
        assertThat(events.get(events.size() - 1)).isEqualTo("cancel");
      }
      assertThat(midMessage.events()).containsExactly("cancel");
      assertThat(unread.events()).doesNotContain("halfClose").hasSizeLessThanOrEqualTo(4);
    }
  }

  @Test
  void aClientResetRacingItsServicesCloseLeavesEachListenerItsEventsInOrderAndNothingHeld()
      throws Exception {
    // Each round waits for its service to start, about 0.1 s: 60 rounds keep the build short.
    int count = 60;
    List<Held> raced = new ArrayList<>();
    try (RawHttp2Client client = new RawHttp2Client(port())) {
      for (int i = 0; i < count; i++) {
        int stream = 3 + 2 * i;
        client.open(stream, RawHttp2Socket.request("Race"), false);
        client.send(stream, messages(1, 10), true);
        client.reset(stream);
        raced.add(nextCall());
      }
      for (Held call : raced) {
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> call.events().contains("cancel") || call.events().contains("complete"));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> held() == 0);
    }
    for (Held call : raced) {
      List<String> events = call.events();
      assertThat(events).as("events of one call").doesNotContain("overlap");
      String last = events.get(events.size() - 1);
      assertThat(last).isIn("cancel", "complete");
      assertThat(events.subList(0, events.size() - 1)).doesNotContain("cancel", "complete");
      int halfClose = events.indexOf("halfClose");
      if (halfClose >= 0) {
        assertThat(events.subList(0, halfClose)).containsExactly("message");
      }
    }
  }
}
