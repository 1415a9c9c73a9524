package dev.tether.internal;

import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import dev.tether.spi.Ticker;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one runtime's events to its listeners on a thread of its own, never an event loop, in
 * the order they were emitted. With no listener, emitting costs one field read.
 */
public final class EventBus implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventBus.class);

  private final List<TetherListener> listeners;
  private final Ticker ticker;
  /** Null when there is no listener. */
  private final ExecutorService delivery;

  public EventBus(List<TetherListener> listeners, Ticker ticker, String threadName) {
    this.listeners = List.copyOf(listeners);
    this.ticker = ticker;
    if (this.listeners.isEmpty()) {
      delivery = null;
    } else {
      // One thread, started on the first event and let go when idle, so an idle runtime holds none.
      ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread t = new Thread(r, threadName);
        t.setDaemon(true);
        return t;
      });
      pool.allowCoreThreadTimeOut(true);
      delivery = pool;
    }
  }

  /** True when someone listens; callers skip building an event's detail otherwise. */
  public boolean isOn() {
    return delivery != null;
  }

  public void emit(TetherEvent.Kind kind, String endpoint, String detail, Throwable cause) {
    if (delivery == null) {
      return;
    }
    TetherEvent event = new TetherEvent(kind, endpoint, detail, cause, ticker.nanoTime());
    try {
      delivery.execute(() -> deliver(event));
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // The runtime is closed; late events have nobody left to tell.
    }
  }

  private void deliver(TetherEvent event) {
    for (TetherListener l : listeners) {
      try {
        l.onEvent(event);
      } catch (Throwable t) {
        log.warn("listener {} threw on {}; it stays registered", l, event.kind(), t);
      }
    }
  }

  /** Delivers what was emitted so far, waiting at most a second, then stops. */
  @Override
  public void close() {
    if (delivery != null) {
      delivery.shutdown();
      try {
        delivery.awaitTermination(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
