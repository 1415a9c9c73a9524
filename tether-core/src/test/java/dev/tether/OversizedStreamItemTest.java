package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.observe.TetherEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stream item larger than the receiving side's maximum frame, either direction, over real
 * loopback: it is never written, its stream fails naming both sizes, and the connection with its
 * other calls and streams goes on (no protocol error, no reconnect).
 */
class OversizedStreamItemTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final int CLIENT_MAX_FRAME = 64 * 1024;
  private static final int SERVER_MAX_FRAME = 256 * 1024;
  private static final byte[] HELLO = "still here".getBytes(StandardCharsets.US_ASCII);

  private final List<TetherEvent.Kind> connectionEvents = new CopyOnWriteArrayList<>();

  /** Holds the "slow" service's calls until the test lets them answer. */
  private final CountDownLatch slowMayAnswer = new CountDownLatch(1);

  private TetherServer server;
  private Tether tether;

  @AfterEach
  void stop() throws Exception {
    slowMayAnswer.countDown();
    Closing.all(tether, server);
  }

  @Test
  void serverItemLargerThanTheClientsFrameFailsOnlyItsStreamNamingBothSizes() throws Exception {
    server =
        serverWith(
            "sized",
            (op, request, inbound, ctx) ->
                new NumberedItems(
                    3, n -> new byte[n == 2 ? CLIENT_MAX_FRAME + 1 : CLIENT_MAX_FRAME / 2]));
    tether = clientWatchingConnections();
    Activity beside = activityBeside();
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    tether.proxy(server.proxyString("sized")).stream("big", new byte[0]).subscribe(subscriber);

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            RemoteException.class,
            e -> {
              assertThat(e.remoteType()).isEqualTo(RequestTooLargeException.class.getName());
              assertThat(e.getMessage())
                  .contains(
                      "stream item 2 of 65537 bytes is a frame of 65544 bytes, over the 65536"
                          + " bytes the peer accepts");
            });
    assertThat(subscriber.items()).hasSize(1);
    beside.goesOn();
  }

  @Test
  void clientItemLargerThanTheServersFrameFailsOnlyItsStreamNamingBothSizes() throws Exception {
    ManualPublisher replies = new ManualPublisher();
    CollectingSubscriber heard = CollectingSubscriber.unbounded();
    server =
        serverWith(
            "sink",
            (op, request, inbound, ctx) -> {
              inbound.subscribe(heard);
              return replies;
            });
    tether = clientWatchingConnections();
    Activity beside = activityBeside();
    ManualPublisher outbound = new ManualPublisher();
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    tether.proxy(server.proxyString("sink")).stream("up", new byte[0], outbound)
        .subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> outbound.requested() >= 2);
    outbound.emitSized(1, SERVER_MAX_FRAME / 2);
    outbound.emitSized(1, SERVER_MAX_FRAME + 1);

    String sizes =
        "stream item 2 of 262145 bytes is a frame of 262152 bytes, over the 262144 bytes the"
            + " peer accepts";
    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(RequestTooLargeException.class)
        .hasMessageContaining(sizes);
    assertThat(outbound.isCancelled()).isTrue();
    // The service hears why its inbound items stopped, and its own publisher is let go.
    assertThatThrownBy(() -> heard.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            RemoteException.class,
            e -> {
              assertThat(e.remoteType()).isEqualTo(RequestTooLargeException.class.getName());
              assertThat(e.getMessage()).contains(sizes);
            });
    assertThat(heard.items()).hasSize(1);
    await().atMost(PATIENCE).until(replies::isCancelled);
    await().atMost(PATIENCE).until(() -> server.status().streams() == 1); // only the one beside
    beside.goesOn();
  }

  private TetherServer serverWith(String name, RawStreamService service) throws Exception {
    return TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p 0")
        .maxFrameSize(SERVER_MAX_FRAME)
        .service("echo", (op, payload, ctx) -> payload)
        .service(
            "slow",
            (op, payload, ctx) -> {
              slowMayAnswer.await();
              return payload;
            })
        .streamService(name, service)
        .streamService("feed", NumberedItems.counting(null))
        .build()
        .start();
  }

  private Tether clientWatchingConnections() {
    return Tether.builder()
        .property("tether.client.maxFrameSize", String.valueOf(CLIENT_MAX_FRAME))
        .listener(
            e -> {
              if (e.kind() == TetherEvent.Kind.CONNECTED
                  || e.kind() == TetherEvent.Kind.CONNECTION_CLOSED
                  || e.kind() == TetherEvent.Kind.CONNECT_FAILED) {
                connectionEvents.add(e.kind());
              }
            })
        .build();
  }

  /**
   * A stream that waits for demand and a call that waits for the test, both on the connection
   * before the oversized item; connected once.
   */
  private Activity activityBeside() throws Exception {
    byte[] echoed = tether.proxy(server.proxyString("echo")).invoke("echo", HELLO);
    assertThat(echoed).isEqualTo(HELLO);
    CollectingSubscriber feed = new CollectingSubscriber(10);
    tether.proxy(server.proxyString("feed")).stream(
            "count", "1000".getBytes(StandardCharsets.US_ASCII))
        .subscribe(feed);
    await().atMost(PATIENCE).until(() -> feed.items().size() == 10);
    CompletableFuture<byte[]> slow =
        tether.proxy(server.proxyString("slow")).invokeAsync("slow", HELLO);
    await().atMost(PATIENCE).until(() -> server.status().inFlight() == 1);
    assertThat(connectionEvents).containsExactly(TetherEvent.Kind.CONNECTED);
    return new Activity(feed, slow);
  }

  /** What was on the connection before the oversized item, which must not notice it. */
  private final class Activity {
    private final CollectingSubscriber feed;
    private final CompletableFuture<byte[]> slow;

    Activity(CollectingSubscriber feed, CompletableFuture<byte[]> slow) {
      this.feed = feed;
      this.slow = slow;
    }

    void goesOn() throws Exception {
      slowMayAnswer.countDown();
      assertThat(slow.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo(HELLO);
      feed.request(Long.MAX_VALUE - 10);
      feed.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(feed.items()).hasSize(1000);
      assertThat(tether.proxy(server.proxyString("echo")).invoke("echo", HELLO)).isEqualTo(HELLO);
      assertThat(server.status().connections()).isEqualTo(1);
      assertThat(connectionEvents).containsExactly(TetherEvent.Kind.CONNECTED);
    }
  }
}
