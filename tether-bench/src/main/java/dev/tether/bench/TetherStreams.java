package dev.tether.bench;

import dev.tether.CallContext;
import dev.tether.Proxy;
import dev.tether.Tether;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Tether's streams over its public API: the server's stream service (registered by every Tether
 * bench server beside its echo calls) and the client, one runtime and one proxy whose streams share
 * one connection. The feed is {@link StampedItems}; the echo hands the inbound publisher back as
 * the outbound one, so each item returns as it came, under both directions' credit. The client's
 * subscriber asks for everything at once (a subscriber that keeps up): the runtime's credit then
 * bounds each direction to {@code tether.stream.window} items (64 by default) in flight.
 */
final class TetherStreams {
  static final String SERVICE = "bench-streams";
  static final String FEED = "feed";
  static final String ECHO = "echo";

  private TetherStreams() {}

  /** The stream service: "feed" items of the size the request names, or "echo" what comes in. */
  static Flow.Publisher<byte[]> open(
      String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext ctx) {
    if (operation.equals(ECHO)) {
      return inbound::subscribe;
    }
    int size = StampedItems.sizeOf(request);
    if (!operation.equals(FEED) || size < StampedItems.MIN_BYTES) {
      throw new IllegalArgumentException(
          "no stream " + operation + " of " + size + "-byte items here");
    }
    return new StampedItems(size);
  }

  /** One runtime, one proxy, one connection. */
  static final class Client implements StreamClient {
    /** Non-null once {@link #connect} has run. */
    private Tether tether;

    /** Non-null once {@link #connect} has run. */
    private Proxy proxy;

    @Override
    public void connect(int port) {
      tether = Tether.create();
      proxy = tether.proxy(SERVICE + ":tcp -h 127.0.0.1 -p " + port);
      proxy.connectAsync().join(); // connect now, not on the first stream
    }

    @Override
    public Cancellable feed(int itemBytes, StreamMeter.Sink sink) {
      return subscribe(proxy.stream(FEED, StampedItems.request(itemBytes)), sink);
    }

    @Override
    public Cancellable echo(int itemBytes, StreamMeter.Sink sink) {
      return subscribe(proxy.stream(ECHO, new byte[0], new StampedItems(itemBytes)), sink);
    }

    private static Cancellable subscribe(Flow.Publisher<byte[]> items, StreamMeter.Sink sink) {
      MeteredSubscriber subscriber = new MeteredSubscriber(sink);
      items.subscribe(subscriber);
      return subscriber::cancel;
    }

    @Override
    public void close() {
      if (tether != null) {
        tether.close();
      }
    }

    @Override
    public String toString() {
      return "tether";
    }
  }

  /** Hands each item to the meter; asks for everything. */
  private static final class MeteredSubscriber implements Flow.Subscriber<byte[]> {
    private final StreamMeter.Sink sink;
    private final AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
    private volatile boolean cancelled;

    MeteredSubscriber(StreamMeter.Sink sink) {
      this.sink = sink;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription.set(s);
      if (cancelled) {
        s.cancel();
        return;
      }
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(byte[] item) {
      sink.onItem(item);
    }

    @Override
    public void onError(Throwable failure) {
      if (!cancelled) {
        sink.onError(failure);
      }
    }

    @Override
    public void onComplete() {
      sink.onError(new IllegalStateException("a stream without end completed"));
    }

    void cancel() {
      cancelled = true;
      Flow.Subscription s = subscription.get();
      if (s != null) {
        s.cancel();
      }
    }
  }
}
