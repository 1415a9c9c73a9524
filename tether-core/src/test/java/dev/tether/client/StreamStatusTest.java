package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Closing;
import dev.tether.CollectingSubscriber;
import dev.tether.LiveConnections;
import dev.tether.NumberedItems;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.ConnectionStatus;
import dev.tether.observe.ServerStatus;
import dev.tether.observe.TetherEvent;
import io.netty.channel.ChannelOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the status snapshots and the stream events say of streams, over loopback: the count of open
 * streams on the client's connection and on the server, the server's streams waiting for a resume,
 * and the items each side handled: carried by the event that ends a stream, and counted in the
 * snapshots while it runs.
 */
class StreamStatusTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private final List<TetherEvent> clientEvents = new CopyOnWriteArrayList<>();
  private final List<TetherEvent> serverEvents = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private Tether tether;

  /** A feed of as many numbered items as its request says (-1: without end). */
  private Proxy startFeed(String clientResumeWindow, String serverResumeWindow) {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .listener(serverEvents::add)
            .property("tether.stream.resumeWindow", serverResumeWindow)
            .streamService("feed", NumberedItems.counting(null))
            .build()
            .start();
    tether =
        Tether.builder()
            .listener(clientEvents::add)
            .property("tether.stream.resumeWindow", clientResumeWindow)
            .build();
    return tether.proxy(server.proxyString("feed"));
  }

  @AfterEach
  void stop() throws Exception {
    Closing.all(tether, server);
  }

  private int clientStreams() {
    return tether.status().connections().stream().mapToInt(ConnectionStatus::streams).sum();
  }

  /** Resets the connection under the stream (RST, not FIN), as a broken network would. */
  private void reset(Proxy proxy) {
    ClientConnection carrying = LiveConnections.stream(tether, proxy.connection());
    carrying.channel.config().setOption(ChannelOption.SO_LINGER, 0);
    carrying.channel.close().syncUninterruptibly();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void statusCountsTheItemsOfAStreamThatIsStillRunningOnBothSides() throws Exception {
    Proxy feed = startFeed("10s", "10s");
    CollectingSubscriber subscriber = new CollectingSubscriber(250);
    feed.stream("count", ascii("-1"))
        .subscribe(subscriber); // without end: it never reports at its end
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 250);

    await().atMost(PATIENCE).until(() -> tether.status().streamItems().received() == 250);
    assertThat(tether.status().streamItems().sent())
        .as("a server stream: the client sends nothing")
        .isZero();
    assertThat(server.status().streamItems().sent())
        .as("credited ahead of demand: at least what was delivered")
        .isGreaterThanOrEqualTo(250);
    assertThat(server.status().streams()).isEqualTo(1);

    subscriber.request(50);
    await().atMost(PATIENCE).until(() -> tether.status().streamItems().received() == 300);
  }

  @Test
  void statusShowsOneOpenStreamWhileItRunsAndNoneOnceItCompletes() throws Exception {
    Proxy feed = startFeed("10s", "10s");
    CollectingSubscriber subscriber = new CollectingSubscriber(3);
    feed.stream("count", ascii("10")).subscribe(subscriber);
    await()
        .atMost(PATIENCE)
        .until(() -> subscriber.items().size() == 3); // it waits for more demand

    assertThat(tether.status().connections())
        .singleElement()
        .satisfies(c -> assertThat(c.streams()).isEqualTo(1));
    ServerStatus open = server.status();
    assertThat(open.streams()).isEqualTo(1);
    assertThat(open.detachedStreams()).isZero();

    subscriber.request(100);
    subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              assertThat(clientStreams()).isZero();
              assertThat(server.status().streams()).isZero();
            });
  }

  @Test
  void serverCountsAStreamWhoseConnectionBrokeAsDetachedUntilItsResumeWindowEnds() {
    Proxy feed = startFeed("0s", "2s"); // the client gives up at once; the server waits 2 s
    CollectingSubscriber subscriber = new CollectingSubscriber(2);
    feed.stream("count", ascii("-1")).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> server.status().streams() == 1);

    reset(feed);

    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              ServerStatus waiting = server.status();
              assertThat(waiting.streams()).isZero();
              assertThat(waiting.detachedStreams()).isEqualTo(1);
            });
    assertThat(clientStreams()).isZero();
    await().atMost(PATIENCE).until(() -> server.status().detachedStreams() == 0);
    // Events reach listeners on the server's event thread, after the count changed.
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () ->
                assertThat(serverEvents)
                    .extracting(TetherEvent::kind)
                    .contains(TetherEvent.Kind.STREAM_LOST));
  }

  @Test
  void resumedStreamIsCountedOnTheConnectionItResumedOnAndNoLongerDetached() throws Exception {
    Proxy feed = startFeed("10s", "10s");
    CollectingSubscriber subscriber = new CollectingSubscriber(5);
    feed.stream("count", ascii("-1")).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 5);
    long firstConnection = feed.connection().id();

    reset(feed);

    await()
        .atMost(PATIENCE)
        .until(
            () -> clientEvents.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.STREAM_RESUMED));
    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              assertThat(feed.connection().id()).isNotEqualTo(firstConnection);
              assertThat(clientStreams()).isEqualTo(1);
              ServerStatus s = server.status();
              assertThat(s.streams()).isEqualTo(1);
              assertThat(s.detachedStreams()).isZero();
            });
  }

  @Test
  void eventsThatEndAStreamCarryTheItemsEachSideHandled() throws Exception {
    Proxy feed = startFeed("10s", "10s");
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();
    feed.stream("count", ascii("25")).subscribe(subscriber);
    subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () -> {
              assertThat(ended(clientEvents, TetherEvent.Kind.STREAM_CLOSED))
                  .isEqualTo(new TetherEvent.StreamItems(0, 25));
              assertThat(ended(serverEvents, TetherEvent.Kind.STREAM_CLOSED))
                  .isEqualTo(new TetherEvent.StreamItems(25, 0));
            });
    assertThat(clientEvents)
        .filteredOn(e -> e.kind() == TetherEvent.Kind.STREAM_OPENED)
        .singleElement()
        .satisfies(e -> assertThat(e.items()).isNull());
  }

  @Test
  void lostStreamEventCarriesWhatWasDeliveredBeforeTheLoss() {
    Proxy feed = startFeed("0s", "10s");
    CollectingSubscriber subscriber = new CollectingSubscriber(7);
    feed.stream("count", ascii("-1")).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 7);

    reset(feed);

    await()
        .atMost(PATIENCE)
        .untilAsserted(
            () ->
                assertThat(ended(clientEvents, TetherEvent.Kind.STREAM_LOST))
                    .isEqualTo(new TetherEvent.StreamItems(0, 7)));
  }

  /** The items of the one event of {@code kind}, or null while there is none. */
  private static TetherEvent.StreamItems ended(List<TetherEvent> events, TetherEvent.Kind kind) {
    List<TetherEvent> of = events.stream().filter(e -> e.kind() == kind).toList();
    assertThat(of).hasSizeLessThanOrEqualTo(1);
    return of.isEmpty() ? null : of.get(0).items();
  }
}
