package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.EndpointSelection;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.FaultProxy;
import dev.tether.testkit.NumberedStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A RESUME belongs to the server that keeps the stream: when one attempt fails, the stream asks
 * that server again, and the call path never moves the RESUME to another endpoint of the proxy,
 * which knows nothing of the stream and could only answer that it is lost.
 */
class StreamResumePinnedTest {
  private static final int ITEMS = 2000;

  private final AtomicInteger openedOnA = new AtomicInteger();
  private final AtomicInteger openedOnB = new AtomicInteger();
  private final List<TetherEvent> serverAEvents = new CopyOnWriteArrayList<>();
  private final List<TetherEvent> serverBEvents = new CopyOnWriteArrayList<>();
  private final List<TetherEvent> clientEvents = new CopyOnWriteArrayList<>();
  private TetherServer a;
  private TetherServer b;
  private FaultProxy network;
  private Tether tether;

  @AfterEach
  void stop() {
    for (AutoCloseable c : new AutoCloseable[] {tether, network, a, b}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception ignored) {
        // closing what the test opened; the test's verdict is already given
      }
    }
  }

  private static TetherServer feed(AtomicInteger opened, List<TetherEvent> events) {
    return TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p 0")
        .listener(events::add)
        .streamService(
            "feed",
            (operation, request, inbound, context) -> {
              opened.incrementAndGet();
              return NumberedStream.of(ITEMS);
            })
        .build()
        .start();
  }

  /**
   * Server A behind the fault proxy, B direct, a proxy listing A first; the stream opens on A and
   * takes 100 items.
   */
  private Reader openOnA(Duration attemptTimeout) {
    a = feed(openedOnA, serverAEvents);
    b = feed(openedOnB, serverBEvents);
    network = FaultProxy.start("127.0.0.1", a.endpoints().get(0).port());
    tether =
        Tether.builder()
            .listener(clientEvents::add)
            .property("tether.stream.resumeWindow", "20s")
            .build();
    Proxy proxy =
        tether
            .proxy(
                "feed:"
                    + network.endpoint()
                    + ":tcp -h 127.0.0.1 -p "
                    + b.endpoints().get(0).port())
            .withEndpointSelection(EndpointSelection.ORDERED)
            .withAttemptTimeout(attemptTimeout);
    Reader reader = new Reader(100);
    proxy.stream("count", new byte[0]).subscribe(reader);
    await().atMost(Duration.ofSeconds(20)).until(() -> reader.tally.items() == 100);
    return reader;
  }

  /** Every item once and in order, the service opened once on A, B never asked, no loss told. */
  private void assertResumedWholeOnA(Reader reader) {
    network.pass();
    reader.requestAll();
    await().atMost(Duration.ofSeconds(30)).until(reader.ended::isDone);
    assertThat(reader.failure.get()).as("the stream ended well; events: %s", clientEvents).isNull();
    assertThat(reader.tally.items()).isEqualTo(ITEMS);
    assertThat(reader.tally.duplicates()).isZero();
    assertThat(reader.tally.gaps()).isZero();
    assertThat(openedOnA).hasValue(1);
    assertThat(openedOnB).hasValue(0);
    assertThat(clientEvents).noneMatch(e -> e.kind() == TetherEvent.Kind.STREAM_LOST);
  }

  @Test
  void aResumeWhoseConnectionBreaksIsAskedOfTheStreamsServerAgainNeverOfAnother() {
    Reader reader = openOnA(null);
    // Every byte 300 ms late: the RESUME sent on the next connection is still unanswered when that
    // one breaks too.
    network.latency(Duration.ofMillis(300));
    network.resetAll();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> count(clientEvents, TetherEvent.Kind.CONNECTED) == 2);
    network.resetAll();

    await("resumed on the third connection")
        .atMost(Duration.ofSeconds(20))
        .until(() -> count(clientEvents, TetherEvent.Kind.STREAM_RESUMED) == 1);
    assertThat(count(clientEvents, TetherEvent.Kind.CONNECTED)).isGreaterThanOrEqualTo(3);
    assertResumedWholeOnA(reader);
  }

  @Test
  void aResumeIsNotCutShortByTheProxysAttemptTimeout() {
    Reader reader = openOnA(Duration.ofMillis(100));
    // The RESUME's answer comes 600 ms after it left: six attempt timeouts, well within the resume
    // window.
    network.latency(Duration.ofMillis(300));
    network.resetAll();

    await("resumed")
        .atMost(Duration.ofSeconds(20))
        .until(() -> count(clientEvents, TetherEvent.Kind.STREAM_RESUMED) == 1);
    assertThat(count(serverAEvents, TetherEvent.Kind.STREAM_CLOSED))
        .as("the stream is alive on A")
        .isZero();
    assertResumedWholeOnA(reader);
  }

  private static long count(List<TetherEvent> events, TetherEvent.Kind kind) {
    return events.stream().filter(e -> e.kind() == kind).count();
  }

  /** Asks for {@code first} items, then for all once told; tallies what arrives. */
  private static final class Reader implements Flow.Subscriber<byte[]> {
    final NumberedStream.Tally tally = new NumberedStream.Tally();
    final CompletableFuture<Void> ended = new CompletableFuture<>();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final long first;
    private volatile Flow.Subscription subscription;

    Reader(long first) {
      this.first = first;
    }

    void requestAll() {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(first);
    }

    @Override
    public void onNext(byte[] item) {
      tally.add(item);
    }

    @Override
    public void onError(Throwable t) {
      failure.set(t);
      ended.complete(null);
    }

    @Override
    public void onComplete() {
      ended.complete(null);
    }
  }
}
