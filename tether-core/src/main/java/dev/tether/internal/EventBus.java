package dev.tether.internal;

import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import dev.tether.spi.Ticker;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one runtime's events to its listeners on a thread of its own, never an event loop, in
 * the order they were emitted. Listeners may be added and removed from any thread while it runs: an
 * event goes to the listeners registered when it was emitted. With no listener, emitting costs one
 * field read.
 */
public final class EventBus implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventBus.class);
  private static final TetherListener[] NONE = {};

  private final Ticker ticker;

  /**
   * Copy-on-write, replaced whole under {@code this}; emitters read it once, without a lock, and
   * hand that array to the delivery with the event, so a listener sees exactly the events emitted
   * between its addition and its removal.
   */
  private volatile TetherListener[] listeners;

  /**
   * Starts its one thread on the first event and lets it go when idle, so an idle runtime holds
   * none.
   */
  private final ThreadPoolExecutor delivery;

  public EventBus(List<TetherListener> listeners, Ticker ticker, String threadName) {
    this.listeners = listeners.isEmpty() ? NONE : listeners.toArray(NONE);
    this.ticker = ticker;
    delivery =
        new ThreadPoolExecutor(
            1,
            1,
            5,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    delivery.allowCoreThreadTimeOut(true);
  }

  /** True when someone listens; callers skip building an event's detail otherwise. */
  public boolean isOn() {
    return listeners != NONE;
  }

  /**
   * Adds {@code l} for the events emitted from now on; adding it twice delivers each event twice.
   */
  public synchronized void add(TetherListener l) {
    Objects.requireNonNull(l, "listener");
    TetherListener[] now = listeners;
    TetherListener[] next = Arrays.copyOf(now, now.length + 1);
    next[now.length] = l;
    listeners = next;
  }

  /**
   * Removes one registration of {@code l} (the same instance): events emitted from now on skip it;
   * those emitted before may still reach it, in order, after this returns. Returns false when it
   * was not registered.
   */
  public synchronized boolean remove(TetherListener l) {
    TetherListener[] now = listeners;
    for (int i = 0; i < now.length; i++) {
      if (now[i] == l) {
        TetherListener[] next = new TetherListener[now.length - 1];
        System.arraycopy(now, 0, next, 0, i);
        System.arraycopy(now, i + 1, next, i, now.length - i - 1);
        listeners = next.length == 0 ? NONE : next;
        return true;
      }
    }
    return false;
  }

  public void emit(TetherEvent.Kind kind, String endpoint, String detail, Throwable cause) {
    emit(kind, endpoint, detail, cause, null);
  }

  /**
   * As {@link #emit(TetherEvent.Kind, String, String, Throwable)}, for the end of a stream and what
   * it carried.
   */
  public void emit(
      TetherEvent.Kind kind,
      String endpoint,
      String detail,
      Throwable cause,
      TetherEvent.StreamItems items) {
    TetherListener[] to = listeners;
    if (to == NONE) {
      return;
    }
    TetherEvent event = new TetherEvent(kind, endpoint, detail, cause, ticker.nanoTime(), items);
    try {
      delivery.execute(() -> deliver(event, to));
    } catch (RejectedExecutionException closed) {
      // The runtime is closed; late events have nobody left to tell.
    }
  }

  private static void deliver(TetherEvent event, TetherListener[] to) {
    for (TetherListener l : to) {
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
    delivery.shutdown();
    try {
      delivery.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
