package dev.tether.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.internal.PlatformDependent;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Coalesces frames written from any thread into few large writes and one flush per event-loop turn:
 * callers enqueue; one task on the channel's loop encodes everything queued into one pooled buffer
 * and writes it. Subclasses decide how an item is encoded and what a finished batch means.
 *
 * @param <T> what is queued: a frame, or a call that becomes one
 */
public abstract class WriteBatcher<T> implements Runnable {
  /** A batch buffer is written once it holds this much, so one burst cannot grow it unbounded. */
  private static final int MAX_BATCH_BYTES = 64 * 1024;

  /**
   * Items per chunk of the queue: more queued at once link another chunk (1 KB, garbage once
   * drained). Netty's default of 1024 made each queue 4.7 KB, most of an idle connection's heap;
   * 128 allocated a chunk per lap at 128 calls in flight, 256 none up to 200.
   */
  private static final int QUEUE_CHUNK = 256;

  /**
   * Bounds nothing in practice (2^30 queued frames would not fit in memory); the queue needs one.
   */
  private static final int QUEUE_CAPACITY = 1 << 30;

  private static final VarHandle QUEUE;

  static {
    try {
      QUEUE = MethodHandles.lookup().findVarHandle(WriteBatcher.class, "queue", Queue.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Made by the first enqueue (whichever thread wins the compare-and-set), so a connection that
   * never writes a batch, an idle one with heartbeats only, holds no queue.
   */
  private volatile Queue<T> queue;

  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  protected final Channel channel;

  protected WriteBatcher(Channel channel) {
    this.channel = channel;
  }

  /** Queues an item; safe from any thread. */
  public final void enqueue(T item) {
    if (!queue().offer(item)) {
      throw new IllegalStateException("write queue of " + channel + " is full");
    }
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
    Queue<T> items = queue;
    if (items == null) {
      return; // run before anything was ever queued: nothing to write
    }
    ByteBuf batch = null;
    T item;
    while ((item = items.poll()) != null) {
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
    Queue<T> items = queue;
    if (items == null) {
      return;
    }
    T item;
    while ((item = items.poll()) != null) {
      discard(item);
    }
  }

  @SuppressWarnings("unchecked")
  private Queue<T> queue() {
    Queue<T> items = queue;
    if (items == null) {
      Queue<T> made = PlatformDependent.newMpscQueue(QUEUE_CHUNK, QUEUE_CAPACITY);
      items = QUEUE.compareAndSet(this, null, made) ? made : (Queue<T>) QUEUE.getVolatile(this);
    }
    return items;
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
