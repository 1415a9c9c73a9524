package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;

/**
 * Typed streams over loopback: interface methods returning Flow.Publisher open streams whose items
 * are records, both ways; the service is written with Reactor and so is the caller, through
 * Reactor's own JdkFlowAdapter, so Tether's publishers and subscribers meet a real Reactive Streams
 * implementation on both sides.
 */
class TypedStreamsTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  public record Quote(String symbol, long price) {}

  public record Trade(long seq, long quantity) {}

  public record Ack(String book, long seq) {}

  public record Summary(long trades, long quantity) {}

  public interface Prices {
    /** Quotes priced 1, 2, ... up to {@code count}, or without end when it is negative. */
    Flow.Publisher<Quote> watch(String symbol, int count);

    /** One acknowledgement per trade, in order. */
    Flow.Publisher<Ack> record(String book, Flow.Publisher<Trade> trades);

    /** Client streaming: many trades in, one summary out. */
    Flow.Publisher<Summary> total(Flow.Publisher<Trade> trades);

    long price(String symbol);
  }

  /** What a client compiled against a newer interface sees: a stream method the server lacks. */
  public interface NewerPrices {
    Flow.Publisher<Quote> watchAll();
  }

  public interface TakesAPublisherButReturnsNone {
    long count(Flow.Publisher<Trade> trades);
  }

  private final AtomicInteger watchCancels = new AtomicInteger();
  private final AtomicLong quotesEmitted = new AtomicLong();

  private final class PricesService implements Prices {
    @Override
    public Flow.Publisher<Quote> watch(String symbol, int count) {
      Flux<Long> prices =
          count < 0
              ? Flux.generate(
                  () -> 1L,
                  (n, sink) -> {
                    sink.next(n);
                    return n + 1;
                  })
              : Flux.range(1, count).map(Integer::longValue);
      return JdkFlowAdapter.publisherToFlowPublisher(
          prices
              .map(p -> new Quote(symbol, p))
              .doOnNext(q -> quotesEmitted.incrementAndGet())
              .doOnCancel(watchCancels::incrementAndGet));
    }

    @Override
    public Flow.Publisher<Ack> record(String book, Flow.Publisher<Trade> trades) {
      return JdkFlowAdapter.publisherToFlowPublisher(
          JdkFlowAdapter.flowPublisherToFlux(trades).map(t -> new Ack(book, t.seq())));
    }

    @Override
    public Flow.Publisher<Summary> total(Flow.Publisher<Trade> trades) {
      return JdkFlowAdapter.publisherToFlowPublisher(
          JdkFlowAdapter.flowPublisherToFlux(trades)
              .reduce(
                  new Summary(0, 0),
                  (s, t) -> new Summary(s.trades() + 1, s.quantity() + t.quantity())));
    }

    @Override
    public long price(String symbol) {
      return symbol.length();
    }
  }

  private TetherServer server;
  private Tether tether;
  private Prices prices;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("prices", Prices.class, new PricesService())
            .build()
            .start();
    tether = Tether.create();
    prices = tether.proxy(server.proxyString("prices")).as(Prices.class);
  }

  @AfterEach
  void stop() {
    tether.close();
    server.close();
  }

  private static <T> Flux<T> flux(Flow.Publisher<T> publisher) {
    return JdkFlowAdapter.flowPublisherToFlux(publisher);
  }

  private static Flux<Trade> trades(int count) {
    return Flux.range(1, count).map(i -> new Trade(i, 2L * i));
  }

  @Test
  void typedServerStreamDeliversRecordsInOrderThroughReactor() {
    List<Quote> quotes = flux(prices.watch("ACME", 2_000)).collectList().block(PATIENCE);

    assertThat(quotes)
        .containsExactlyElementsOf(
            LongStream.rangeClosed(1, 2_000).mapToObj(p -> new Quote("ACME", p)).toList());
  }

  @Test
  void typedBidirectionalStreamAnswersEachRecordInOrder() {
    Flow.Publisher<Trade> outbound = JdkFlowAdapter.publisherToFlowPublisher(trades(1_000));

    List<Ack> acks = flux(prices.record("book-7", outbound)).collectList().block(PATIENCE);

    assertThat(acks)
        .containsExactlyElementsOf(
            LongStream.rangeClosed(1, 1_000).mapToObj(seq -> new Ack("book-7", seq)).toList());
  }

  @Test
  void clientStreamingIsABidirectionalStreamWhoseReplyHasOneItem() {
    Flow.Publisher<Trade> outbound = JdkFlowAdapter.publisherToFlowPublisher(trades(300));

    List<Summary> replies = flux(prices.total(outbound)).collectList().block(PATIENCE);

    assertThat(replies).containsExactly(new Summary(300, 300L * 301));
  }

  @Test
  void reactorTakeCancelsTheServicesPublisherAndCallsGoOn() {
    List<Quote> first = flux(prices.watch("ENDLESS", -1)).take(10).collectList().block(PATIENCE);

    assertThat(first)
        .extracting(Quote::price)
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    await().atMost(PATIENCE).until(() -> watchCancels.get() == 1);
    // demand stayed bounded: what was taken, plus at most two windows of credit in flight
    assertThat(quotesEmitted.get()).isLessThanOrEqualTo(10 + 2 * 64);
    assertThat(prices.price("ACME"))
        .isEqualTo(4); // the same stub's calls use the same connection on
  }

  @Test
  void streamMethodTheServerLacksFailsWithOperationNotFound() {
    NewerPrices newer = tether.proxy(server.proxyString("prices")).as(NewerPrices.class);

    assertThatThrownBy(() -> flux(newer.watchAll()).blockLast(PATIENCE))
        .isInstanceOf(OperationNotFoundException.class);
  }

  @Test
  void interfaceTakingAPublisherWithoutReturningOneIsRefused() {
    Proxy proxy = tether.proxy(server.proxyString("prices"));

    assertThatThrownBy(() -> proxy.as(TakesAPublisherButReturnsNone.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client streaming is a bidirectional stream");
  }
}
