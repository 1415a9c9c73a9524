package dev.tether.stream;

import dev.tether.protocol.Frame;
import dev.tether.protocol.StreamItem;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.AttributeKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stream's link over one Netty channel. Writes from the stream's context are held and handed to
 * the channel's loop as one task per flush (a run of the context), which writes them in the order
 * they were made, after anything the loop itself wrote before the flush, and flushes once: one
 * hand-off per run, not one per frame. A failed write needs no answer here, since the connection's
 * close tells the stream.
 */
public final class ChannelLink implements StreamLink {
  /**
   * Frames held at most before they go without waiting for the run's end, so a long run keeps
   * moving.
   */
  static final int MAX_HELD = 128;

  /** Wake-ups of the senders on a connection that wait for it to be writable; on its loop. */
  private static final AttributeKey<List<Runnable>> WAITING =
      AttributeKey.valueOf("tether.stream.waitingForWritable");

  /** The largest frame the connection's peer accepts, from its handshake. */
  private static final AttributeKey<Integer> PEER_MAX_FRAME =
      AttributeKey.valueOf("tether.stream.peerMaxFrameSize");

  private final Channel channel;
  private final int streamId;

  /**
   * Item bytes held or handed to the loop and not yet written there, past which the link is not
   * writable: the channel's own water marks see a write only once the loop made it, and a fast
   * publisher must not outrun a busy loop.
   */
  static final long MAX_UNWRITTEN_BYTES = 256 * 1024;

  /** Written since the last flush; only the stream's context touches it. */
  private List<Frame> held = new ArrayList<>();

  /** Item bytes in {@link #held}; the context's. */
  private long heldBytes;

  /** Item bytes of flushed batches the loop has not written yet. */
  private final AtomicLong handed = new AtomicLong();

  public ChannelLink(Channel channel, int streamId) {
    this.channel = channel;
    this.streamId = streamId;
  }

  @Override
  public int streamId() {
    return streamId;
  }

  @Override
  public void write(Frame frame) {
    held.add(frame);
    if (frame instanceof StreamItem item) {
      heldBytes += item.body().length;
    }
    if (held.size() >= MAX_HELD) {
      flush();
    }
  }

  @Override
  public void flush() {
    flush(null);
  }

  @Override
  public CompletableFuture<Void> flushAndWait() {
    CompletableFuture<Void> sent = new CompletableFuture<>();
    flush(sent);
    return sent;
  }

  /**
   * @param sent completed once the batch's writes are done; null when no one waits
   */
  private void flush(CompletableFuture<Void> sent) {
    if (held.isEmpty()) {
      if (sent != null) {
        sent.complete(null);
      }
      return;
    }
    List<Frame> batch = held;
    long bytes = heldBytes;
    held = new ArrayList<>(Math.min(MAX_HELD, batch.size()));
    heldBytes = 0;
    EventLoop loop = channel.eventLoop();
    if (loop.inEventLoop()) {
      writeAll(batch, sent);
      return;
    }
    handed.addAndGet(bytes);
    try {
      loop.execute(
          () -> {
            handed.addAndGet(-bytes);
            writeAll(batch, sent);
          });
    } catch (RejectedExecutionException loopStopped) {
      handed.addAndGet(-bytes);
      // The loop is gone with its connection: the stream hears of the close, and the frames hold no
      // buffers.
      if (sent != null) {
        sent.complete(null);
      }
    }
  }

  private void writeAll(List<Frame> batch, CompletableFuture<Void> sent) {
    int last = batch.size() - 1;
    for (int i = 0; i < last; i++) {
      channel.write(batch.get(i), channel.voidPromise());
    }
    if (sent == null) {
      channel.write(batch.get(last), channel.voidPromise());
    } else {
      channel.write(batch.get(last)).addListener(done -> sent.complete(null));
    }
    channel.flush();
  }

  /**
   * The peer of {@code channel} announced that it accepts frames of at most {@code maxFrameSize}
   * bytes (call once, at the handshake, before any stream is on it).
   */
  public static void peerAccepts(Channel channel, int maxFrameSize) {
    channel.attr(PEER_MAX_FRAME).set(maxFrameSize);
  }

  @Override
  public int peerMaxFrameSize() {
    Integer max = channel.attr(PEER_MAX_FRAME).get();
    return max == null ? Integer.MAX_VALUE : max;
  }

  @Override
  public boolean isWritable() {
    return channel.isWritable() && heldBytes + handed.get() < MAX_UNWRITTEN_BYTES;
  }

  @Override
  public void whenWritable(Runnable wake) {
    onLoop(
        () -> {
          if (channel.isWritable() || !channel.isActive()) {
            wake.run();
            return;
          }
          List<Runnable> waiting = channel.attr(WAITING).get();
          if (waiting == null) {
            waiting = new ArrayList<>();
            channel.attr(WAITING).set(waiting);
          }
          waiting.add(wake);
        });
  }

  /**
   * The connection's writability changed (call from its handler, on its loop): once writable, the
   * senders waiting for it ask their publishers again. Nothing to do on a connection without them.
   */
  public static void writabilityChanged(Channel channel) {
    if (!channel.isWritable() || !channel.hasAttr(WAITING)) {
      return;
    }
    List<Runnable> waiting = channel.attr(WAITING).getAndSet(null);
    if (waiting != null) {
      waiting.forEach(Runnable::run);
    }
  }

  private void onLoop(Runnable task) {
    EventLoop loop = channel.eventLoop();
    if (loop.inEventLoop()) {
      task.run();
      return;
    }
    try {
      loop.execute(task);
    } catch (RejectedExecutionException loopStopped) {
      task.run(); // the connection is gone: nothing to wait for
    }
  }

  @Override
  public String toString() {
    return "stream " + Integer.toUnsignedString(streamId) + " on " + channel;
  }
}
