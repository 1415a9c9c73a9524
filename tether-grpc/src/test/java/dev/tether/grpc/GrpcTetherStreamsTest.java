package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.TetherServer;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's Tether stream services over gRPC, from grpc-java's own client: the path {@code
 * /identity/stream} is a streaming method whose first message opens the stream, whose items arrive
 * in order as messages, held back by the client's flow control, and whose client's cancel cancels
 * the service's subscription.
 */
@Timeout(60)
class GrpcTetherStreamsTest {
  private static final int ITEM_SIZE = 16 * 1024;

  /** The publisher the last stream opened on "items" returned. */
  private final AtomicReference<CountedItems> opened = new AtomicReference<>();

  private TetherGrpcServerFixture grpc;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server(),
            TetherServer.builder()
                .streamService(
                    "items",
                    (operation, request, inbound, ctx) -> {
                      // The opening request says how many items; "forever" for no end.
                      String text = new String(request, StandardCharsets.UTF_8);
                      CountedItems items =
                          new CountedItems(
                              text.equals("forever") ? -1 : Long.parseLong(text), ITEM_SIZE);
                      opened.set(items);
                      return items;
                    })
                .streamService("echo", (operation, request, inbound, ctx) -> inbound));
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
  }

  private static MethodDescriptor<byte[], byte[]> method(
      String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(type)
        .setFullMethodName(name)
        .setRequestMarshaller(TetherGrpc.rawBytes())
        .setResponseMarshaller(TetherGrpc.rawBytes())
        .build();
  }

  private static final MethodDescriptor<byte[], byte[]> ITEMS =
      method("items/count", MethodDescriptor.MethodType.SERVER_STREAMING);

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @Test
  void aTetherServerStreamsItemsArriveInOrderAsGrpcMessages() {
    Iterator<byte[]> items =
        ClientCalls.blockingServerStreamingCall(channel, ITEMS, options(), text("200"));

    List<Integer> seen = new ArrayList<>();
    items.forEachRemaining(item -> seen.add(CountedItems.indexOf(item)));

    assertThat(seen).hasSize(200);
    for (int i = 0; i < seen.size(); i++) {
      assertThat(seen.get(i)).isEqualTo(i);
    }
  }

  @Test
  void aSlowGrpcClientHoldsTheTetherStreamBackUntilItReads() throws Exception {
    Listener listener = new Listener();
    ClientCall<byte[], byte[]> call = channel.newCall(ITEMS, options());
    call.start(listener, new Metadata());
    call.sendMessage(text("1000"));
    call.halfClose();
    call.request(1);
    assertThat(CountedItems.indexOf(listener.messages.poll(20, TimeUnit.SECONDS))).isZero();

    // 1000 items of 16 KiB are 16 MiB; a client that reads one holds the service to what fills
    // its HTTP/2 window (1 MiB), the socket and the server's ready threshold.
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(10))
        .until(() -> opened.get().asked.get() < 200);

    call.request(Integer.MAX_VALUE);
    for (int i = 1; i < 1000; i++) {
      assertThat(CountedItems.indexOf(listener.messages.poll(20, TimeUnit.SECONDS))).isEqualTo(i);
    }
    assertThat(listener.closed.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void aGrpcClientThatCancelsCancelsTheServicesSubscription() throws Exception {
    Listener listener = new Listener();
    ClientCall<byte[], byte[]> call = channel.newCall(ITEMS, options());
    call.start(listener, new Metadata());
    call.sendMessage(text("forever"));
    call.halfClose();
    call.request(3);
    for (int i = 0; i < 3; i++) {
      assertThat(CountedItems.indexOf(listener.messages.poll(20, TimeUnit.SECONDS))).isEqualTo(i);
    }

    call.cancel("enough", null);

    opened.get().cancelled.get(20, TimeUnit.SECONDS);
    assertThat(listener.closed.get(20, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void aBidirectionalTetherStreamTakesTheClientsMessagesAfterTheOpening() throws Exception {
    BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    CompletableFuture<Void> completed = new CompletableFuture<>();
    StreamObserver<byte[]> requests =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(
                method("echo/chat", MethodDescriptor.MethodType.BIDI_STREAMING), options()),
            new StreamObserver<>() {
              @Override
              public void onNext(byte[] value) {
                answers.add(new String(value, StandardCharsets.UTF_8));
              }

              @Override
              public void onError(Throwable t) {
                completed.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                completed.complete(null);
              }
            });

    requests.onNext(text("opening"));
    requests.onNext(text("one"));
    assertThat(answers.poll(20, TimeUnit.SECONDS)).isEqualTo("one");
    requests.onNext(text("two"));
    assertThat(answers.poll(20, TimeUnit.SECONDS)).isEqualTo("two");
    requests.onCompleted();

    completed.get(20, TimeUnit.SECONDS);
    assertThat(answers).isEmpty();
  }

  /** A client call's messages and its end, as they come. */
  private static final class Listener extends ClientCall.Listener<byte[]> {
    final BlockingQueue<byte[]> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    @Override
    public void onMessage(byte[] message) {
      messages.add(message);
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      closed.complete(status);
    }
  }
}
