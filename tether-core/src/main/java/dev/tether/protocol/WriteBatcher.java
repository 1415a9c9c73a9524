package dev.tether.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Coalesces frames written from any thread into few large writes and one flush per event-loop
 * turn: callers enqueue; one task on the channel's loop encodes everything queued into one pooled
 * buffer and writes it. Subclasses decide how an item is encoded and what a finished batch means.
 *
 * @param <T> what is queued: a frame, or a call that becomes one
 */
public abstract class WriteBatcher<T> implements Runnable {
  /** A batch buffer is written once it holds this much, so one burst cannot grow it unbounded. */
  private static final int MAX_BATCH_BYTES = 64 * 1024;

  private final Queue<T> queue = PlatformDependent.newMpscQueue();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  protected final Channel channel;

  protected WriteBatcher(Channel channel) {
    this.channel = channel;
  }

  /** Queues an item; safe from any thread. */
  public final void enqueue(T item) {
    queue.offer(item);
    // A plain read first: under load a drain is usually scheduled already, and a failing CAS per
    // item still takes the cache line exclusively. The drain clears the flag before it polls.
    if (!drainScheduled.get() && drainScheduled.compareAndSet(false, true)) {
      try {
        channel.eventLoop().execute(this);
      } catch (RejectedExecutionException loopStopped) {
        // The runtime closed while the item was being produced (a late reply): it cannot be sent.
        discardQueued();
      }
    }
  }

  /** Drains the queue on the event loop. */
  @Override
  public final void run() {
    drainScheduled.set(false);
    if (!channel.isActive()) {
      discardQueued();
      return;
    }
    ByteBuf batch = null;
    T item;
    while ((item = queue.poll()) != null) {
      if (batch == null) {
        batch = channel.alloc().ioBuffer(512);
      }
      encode(item, batch);
      if (batch.readableBytes() >= MAX_BATCH_BYTES) {
        writeBatch(batch);
        batch = null;
      }
    }
    if (batch != null) {
      writeBatch(batch);
    }
    channel.flush();
  }

  /** Fails or drops whatever is still queued; call on the event loop once the channel closed. */
  public final void discardQueued() {
    T item;
    while ((item = queue.poll()) != null) {
      discard(item);
    }
  }

  /** Appends the item's frame to {@code out}; runs on the event loop. */
  protected abstract void encode(T item, ByteBuf out);

  /** Writes one batch (without flushing); the default ignores the write's outcome. */
  protected void writeBatch(ByteBuf batch) {
    channel.write(batch, channel.voidPromise());
  }

  /** Called for an item that will never be written because the channel is closed. */
  protected abstract void discard(T item);
}
