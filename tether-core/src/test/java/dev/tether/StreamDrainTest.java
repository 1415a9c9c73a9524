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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Streams across a server's graceful shutdown, over loopback: a stream that ends within the grace
 * ends as it would have, and the drain finishes as soon as it did; one still running when the grace
 * is over ends with {@link StreamLostException} ("server shut down") counting what arrived.
 */
class StreamDrainTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private final List<NumberedItems> opened = new CopyOnWriteArrayList<>();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final List<TetherEvent.Kind> clientEvents = new CopyOnWriteArrayList<>();
  private final List<TetherEvent.Kind> serverEvents = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private Tether tether;

  private Proxy startFeed() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .listener(
                e -> {
                  seen.add("SRV " + e);
                  serverEvents.add(e.kind());
                })
            .streamService("feed", NumberedItems.counting(opened))
            .build()
            .start();
    tether =
        Tether.builder()
            .listener(
                e -> {
                  seen.add("CLI " + e);
                  clientEvents.add(e.kind());
                })
            .build();
    return tether.proxy(server.proxyString("feed"));
  }

  @AfterEach
  void stop() throws Exception {
    Closing.all(tether, server);
  }

  private CompletableFuture<Void> shutDownWithin(Duration grace) {
    return CompletableFuture.runAsync(() -> server.shutdownGracefully(grace));
  }

  @Test
  void drainingServerLetsAStreamFinishWithinItsGrace() throws Exception {
    Proxy feed = startFeed();
    CollectingSubscriber subscriber = new CollectingSubscriber(10);
    feed.stream("count", "500".getBytes(StandardCharsets.US_ASCII)).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 10);

    CompletableFuture<Void> drained = shutDownWithin(Duration.ofMinutes(1));
    await().atMost(PATIENCE).until(() -> "DRAINING".equals(server.status().state()));
    subscriber.request(Long.MAX_VALUE);

    subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(subscriber.numbers())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 500).boxed().toList());
    // the client closes its drained connection once the stream is over: the drain ends long before
    // its grace
    drained.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void streamStillRunningWhenTheGraceIsOverEndsWithStreamLost() throws Exception {
    Proxy feed = startFeed();
    CollectingSubscriber subscriber = new CollectingSubscriber(10);
    feed.stream("count", "-1".getBytes(StandardCharsets.US_ASCII))
        .subscribe(subscriber); // never ends
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 10);

    shutDownWithin(Duration.ofMillis(200)).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .describedAs("events: %s", seen)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            StreamLostException.class,
            lost -> {
              assertThat(lost).hasMessageContaining("server shut down");
              assertThat(lost.delivered()).isEqualTo(subscriber.items().size());
            });
    assertThat(subscriber.items()).hasSize(10);
    await().atMost(PATIENCE).until(() -> opened.get(0).cancels() == 1); // the service was told, too
    // A stream the server lost is a lost stream on both sides, never an ended one on the client.
    await().atMost(PATIENCE).until(() -> clientEvents.contains(TetherEvent.Kind.STREAM_LOST));
    assertThat(clientEvents).doesNotContain(TetherEvent.Kind.STREAM_CLOSED);
    assertThat(serverEvents).contains(TetherEvent.Kind.STREAM_LOST);
  }
}
