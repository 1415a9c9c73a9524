package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.CollectingSubscriber;
import dev.tether.ConnectionLostException;
import dev.tether.EndpointSelection;
import dev.tether.Idempotent;
import dev.tether.NumberedItems;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stream whose opening fails before the server accepted it follows the at-most-once rule of
 * calls, over loopback: refused, it opens on the next server; lost after it was sent, it opens
 * there only when its method is {@code @Idempotent}, else the subscriber hears that it may have
 * run.
 */
class StreamOpeningRetryTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  public interface Feed {
    @Idempotent
    Flow.Publisher<byte[]> replay(int count);

    Flow.Publisher<byte[]> consume(int count);
  }

  private final List<NumberedItems> opened = new CopyOnWriteArrayList<>();
  private TetherServer spare;
  private Tether tether;

  private final class FeedService implements Feed {
    @Override
    public Flow.Publisher<byte[]> replay(int count) {
      return open(count);
    }

    @Override
    public Flow.Publisher<byte[]> consume(int count) {
      return open(count);
    }

    private NumberedItems open(int count) {
      NumberedItems items = new NumberedItems(count);
      opened.add(items);
      return items;
    }
  }

  /** The typed feed on {@code first}, then on a real server serving it. */
  private Feed feedAfter(ScriptedServer first) {
    spare =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("feed", Feed.class, new FeedService())
            .build()
            .start();
    tether = Tether.create();
    Proxy proxy =
        tether
            .proxy("feed:tcp -h 127.0.0.1 -p " + first.port() + ":" + spare.endpoints().get(0))
            .withEndpointSelection(EndpointSelection.ORDERED);
    return proxy.as(Feed.class);
  }

  @AfterEach
  void stop() {
    if (tether != null) {
      tether.close();
    }
    if (spare != null) {
      spare.close();
    }
  }

  private static List<Long> oneTo(long n) {
    return LongStream.rangeClosed(1, n).boxed().toList();
  }

  /** A server that reads the opening, then drops the connection without answering. */
  private static ScriptedServer dropsTheOpening() throws Exception {
    return new ScriptedServer(
        r -> {
          throw new IllegalStateException("the connection dies with the opening unanswered");
        });
  }

  @Test
  void refusedOpeningOpensOnTheNextServerEvenWhenNotIdempotent() throws Exception {
    try (ScriptedServer draining =
        new ScriptedServer(r -> new GoAway(GoAwayReason.SHUTDOWN, 0, "draining"))) {
      CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

      feedAfter(draining).consume(50).subscribe(subscriber);

      subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(subscriber.numbers()).containsExactlyElementsOf(oneTo(50));
      assertThat(draining.requestsSeen()).isEqualTo(1);
      assertThat(opened).hasSize(1);
    }
  }

  @Test
  void idempotentStreamLostBeforeItsOpeningWasAnsweredOpensOnTheNextServer() throws Exception {
    try (ScriptedServer dropping = dropsTheOpening()) {
      CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

      feedAfter(dropping).replay(50).subscribe(subscriber);

      subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(subscriber.numbers()).containsExactlyElementsOf(oneTo(50));
      assertThat(dropping.requestsSeen()).isEqualTo(1);
      assertThat(opened).hasSize(1);
    }
  }

  @Test
  void streamLostBeforeItsOpeningWasAnsweredFailsWhenNotIdempotentAndOpensNowhereElse()
      throws Exception {
    try (ScriptedServer dropping = dropsTheOpening()) {
      CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

      feedAfter(dropping).consume(50).subscribe(subscriber);

      assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              ConnectionLostException.class, e -> assertThat(e.mayHaveExecuted()).isTrue());
      assertThat(subscriber.items()).isEmpty();
      assertThat(opened).isEmpty();
    }
  }
}
