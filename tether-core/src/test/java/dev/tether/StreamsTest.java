package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Streams end to end over loopback: order and completion, demand from the subscriber to the
 * service's publisher, cancel, the service's errors, bidirectional streams, and calls beside a
 * stream that does not move.
 */
class StreamsTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final int WINDOW = 64;

  private final List<NumberedItems> opened = new java.util.concurrent.CopyOnWriteArrayList<>();
  private TetherServer server;
  private Tether tether;

  private Proxy start(TetherServer.Builder b) {
    server =
        b.endpoints("tcp -h 127.0.0.1 -p 0")
            .service("calls", (op, payload, ctx) -> payload)
            .build()
            .start();
    tether = Tether.create();
    return tether.proxy(server.proxyString("feed"));
  }

  /** A feed whose operation names how many items it sends ("count:N"); every publisher is kept. */
  private Proxy startFeed() {
    return start(TetherServer.builder().streamService("feed", NumberedItems.counting(opened)));
  }

  @AfterEach
  void stop() throws Exception {
    Closing.all(tether, server);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void deliversTenThousandItemsInOrderAndCompletes() throws Exception {
    Proxy feed = startFeed();
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    feed.stream("count", ascii("10000")).subscribe(subscriber);

    subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(subscriber.numbers())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 10_000).boxed().toList());
    assertThat(subscriber.signalsAfterEnd()).isZero();
    assertThat(opened).hasSize(1);
  }

  @Test
  void subscriberThatAskedForTenGetsTenAndThePublisherIsAskedForLittleMore() throws Exception {
    Proxy feed = startFeed();
    CollectingSubscriber subscriber = new CollectingSubscriber(10);

    feed.stream("count", ascii("-1")).subscribe(subscriber); // a feed without end

    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 10);
    NumberedItems service = opened.get(0);
    // Whatever is still on its way cannot pass the credit the client gave: nothing beyond ten
    // arrives.
    await()
        .during(Duration.ofMillis(200))
        .atMost(PATIENCE)
        .until(() -> subscriber.items().size() == 10);
    assertThat(service.requested()).isBetween(10L, 10L + 2 * WINDOW);
    assertThat(subscriber.numbers()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);

    subscriber.request(5);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 15);
    assertThat(service.requested()).isLessThanOrEqualTo(15L + 2 * WINDOW);
  }

  @Test
  void cancelReachesTheServiceAndTheConnectionServesOn() throws Exception {
    Proxy feed = startFeed();
    CollectingSubscriber subscriber = new CollectingSubscriber(3);
    feed.stream("count", ascii("-1")).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 3);
    Connection carrying = feed.connection();

    subscriber.cancel();

    await().atMost(PATIENCE).until(() -> opened.get(0).cancels() == 1);
    assertThat(feed.withIdentity("calls").invoke("echo", ascii("still here")))
        .isEqualTo(ascii("still here"));
    assertThat(feed.connection().isSameConnectionAs(carrying)).isTrue();
    assertThat(subscriber.done())
        .isNotDone(); // rule 3.6 spirit: a cancelled subscriber hears nothing more
  }

  @Test
  void aSubscriberThatThrowsFromOnNextCancelsTheServerStream() throws Exception {
    Proxy feed = startFeed();
    List<Long> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Throwable> told = new java.util.concurrent.CopyOnWriteArrayList<>();

    feed.stream("count", ascii("-1"))
        .subscribe(
            new Flow.Subscriber<>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                s.request(100);
              }

              @Override
              public void onNext(byte[] item) {
                seen.add(NumberedItems.number(item));
                if (seen.size() == 3) {
                  throw new IllegalStateException("the subscriber broke on item 3");
                }
              }

              @Override
              public void onError(Throwable failure) {
                told.add(failure);
              }

              @Override
              public void onComplete() {
                told.add(null);
              }
            });

    await().atMost(PATIENCE).until(() -> opened.size() == 1 && opened.get(0).cancels() == 1);
    await().atMost(PATIENCE).until(() -> server.status().streams() == 0);
    assertThat(seen).containsExactly(1L, 2L, 3L);
    assertThat(told).as("a cancelled subscriber hears nothing more").isEmpty();
  }

  @Test
  void closingTheRuntimeEndsItsStreamsAndTheService() {
    Proxy feed = startFeed();
    CollectingSubscriber subscriber = new CollectingSubscriber(4);
    feed.stream("count", ascii("-1")).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 4);

    tether.close(); // at once: an open stream does not hold the close for its grace

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            StreamLostException.class, lost -> assertThat(lost.delivered()).isEqualTo(4));
    await().atMost(PATIENCE).until(() -> opened.get(0).cancels() == 1);
  }

  @Test
  void serviceErrorArrivesAsRemoteException() {
    Proxy feed =
        start(
            TetherServer.builder()
                .streamService(
                    "feed",
                    (operation, request, inbound, ctx) -> {
                      SubmissionPublisher<byte[]> items = new SubmissionPublisher<>();
                      CompletableFuture.runAsync(
                          () -> {
                            await()
                                .atMost(PATIENCE)
                                .until(() -> items.getNumberOfSubscribers() == 1);
                            items.closeExceptionally(new IllegalStateException("feed broke"));
                          });
                      return items;
                    }));
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    feed.stream("broken", new byte[0]).subscribe(subscriber);

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(RemoteException.class)
        .hasMessageContaining("feed broke");
  }

  @Test
  void aServicePublisherThatIgnoresDemandFailsItsStreamAndNothingPastTheCreditIsSent()
      throws Exception {
    Proxy feed =
        start(
            TetherServer.builder()
                .streamService("feed", (operation, request, inbound, ctx) -> new Flood(20_000)));
    CollectingSubscriber subscriber = new CollectingSubscriber(5);

    feed.stream("flood", new byte[0]).subscribe(subscriber);

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            RemoteException.class,
            e -> {
              assertThat(e.remoteType()).isEqualTo(IllegalStateException.class.getName());
              assertThat(e.getMessage())
                  .contains("the publisher sent more than the 5 items it was asked for");
            });
    assertThat(subscriber.items()).hasSize(5);
    await().atMost(PATIENCE).until(() -> server.status().streams() == 0);
    assertThat(feed.withIdentity("calls").invoke("echo", ascii("still here")))
        .isEqualTo(ascii("still here"));
  }

  @Test
  void anOutboundPublisherThatIgnoresDemandFailsItsSubscriberAndCancelsTheServerStream()
      throws Exception {
    CollectingSubscriber heard = CollectingSubscriber.unbounded();
    ManualPublisher answers = new ManualPublisher();
    Proxy sink =
        start(
            TetherServer.builder()
                .streamService(
                    "feed",
                    (operation, request, inbound, ctx) -> {
                      inbound.subscribe(heard);
                      return answers;
                    }));
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    sink.stream("up", new byte[0], new Flood(20_000)).subscribe(subscriber);

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("items it was asked for");
    assertThatThrownBy(() -> heard.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            RemoteException.class,
            e -> assertThat(e.remoteType()).isEqualTo(IllegalStateException.class.getName()));
    assertThat(heard.items()).hasSizeLessThanOrEqualTo(WINDOW);
    await().atMost(PATIENCE).until(answers::isCancelled);
    await().atMost(PATIENCE).until(() -> server.status().streams() == 0);
    assertThat(sink.withIdentity("calls").invoke("echo", ascii("still here")))
        .isEqualTo(ascii("still here"));
  }

  /**
   * A publisher that breaks Reactive Streams rule 1.1: on the first request it sends all its items,
   * whatever was asked.
   */
  private static final class Flood implements Flow.Publisher<byte[]> {
    private final int count;

    Flood(int count) {
      this.count = count;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super byte[]> subscriber) {
      subscriber.onSubscribe(
          new Flow.Subscription() {
            private boolean flooded;

            @Override
            public void request(long n) {
              if (flooded) {
                return;
              }
              flooded = true;
              for (int i = 1; i <= count; i++) {
                subscriber.onNext(NumberedItems.item(i));
              }
            }

            @Override
            public void cancel() {}
          });
    }
  }

  @Test
  void streamOfAnUnknownServiceFailsWithServiceNotFound() {
    Proxy feed = startFeed();
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    feed.withIdentity("nothing").stream("count", ascii("1")).subscribe(subscriber);

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(ServiceNotFoundException.class);
  }

  @Test
  void bidirectionalEchoOfAThousandLinesInOrder() throws Exception {
    Proxy chat =
        start(
            TetherServer.builder()
                .streamService(
                    "feed",
                    (operation, request, inbound, ctx) ->
                        subscriber -> inbound.subscribe(subscriber))); // each line back as it came
    List<byte[]> lines = LongStream.rangeClosed(1, 1000).mapToObj(n -> ascii("line " + n)).toList();
    CollectingSubscriber replies = CollectingSubscriber.unbounded();

    chat.stream("echo", new byte[0], new NumberedItems(lines.size(), n -> lines.get((int) n - 1)))
        .subscribe(replies);

    replies.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(replies.items())
        .extracting(b -> new String(b, StandardCharsets.US_ASCII))
        .containsExactlyElementsOf(
            LongStream.rangeClosed(1, 1000).mapToObj(n -> "line " + n).toList());
  }

  @Test
  void aServiceThatEndsWhileTheClientStillSendsHearsItsInboundEndAndTheClientStops()
      throws Exception {
    CollectingSubscriber heard = new CollectingSubscriber(1);
    Proxy chat =
        start(
            TetherServer.builder()
                .streamService(
                    "feed",
                    (operation, request, inbound, ctx) -> {
                      inbound.subscribe(heard);
                      return new NumberedItems(2); // its answer is over after two items
                    }));
    ManualPublisher outbound = new ManualPublisher();
    CollectingSubscriber replies = CollectingSubscriber.unbounded();

    chat.stream("half", new byte[0], outbound).subscribe(replies);
    await().atMost(PATIENCE).until(() -> outbound.requested() >= 1);
    outbound.emit("one");

    replies.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(replies.items()).hasSize(2);
    await().atMost(PATIENCE).until(outbound::isCancelled);
    await().atMost(PATIENCE).until(() -> server.status().streams() == 0);
    // The stream is over: the service's inbound subscriber is told, not left waiting for ever.
    assertThat(heard.done().handle((ok, failure) -> failure).get(5, TimeUnit.SECONDS))
        .isInstanceOf(CancellationException.class)
        .hasMessageContaining("the stream ended before the client's items did");
  }

  @Test
  void heldStreamDoesNotSlowCallsBesideIt() throws Exception {
    Proxy feed = startFeed();
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Flow.Subscription> held = new AtomicReference<>();
    feed.stream("count", ascii("-1"))
        .subscribe(
            new Flow.Subscriber<>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                held.set(s);
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(byte[] item) {
                try {
                  release.await(); // the subscriber blocks on its first item, holding its stream
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }

              @Override
              public void onError(Throwable failure) {}

              @Override
              public void onComplete() {}
            });
    await().atMost(PATIENCE).until(() -> !opened.isEmpty() && opened.get(0).emitted() >= WINDOW);
    Proxy calls = feed.withIdentity("calls").withInvocationTimeout(Duration.ofSeconds(5));
    try {
      for (int i = 0; i < 200; i++) {
        assertThat(calls.invoke("echo", ascii("call " + i))).isEqualTo(ascii("call " + i));
      }
      // The held stream's service was asked for no more than the client may hold for it.
      assertThat(opened.get(0).requested()).isLessThanOrEqualTo(2L * WINDOW);
    } finally {
      release.countDown();
      held.get().cancel();
    }
  }
}
