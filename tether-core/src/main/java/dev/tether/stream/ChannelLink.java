package dev.tether.stream;

import dev.tether.protocol.Frame;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

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

  private final Channel channel;
  private final int streamId;

  /** Written since the last flush; only the stream's context touches it. */
  private List<Frame> held = new ArrayList<>();

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
    held = new ArrayList<>(Math.min(MAX_HELD, batch.size()));
    EventLoop loop = channel.eventLoop();
    if (loop.inEventLoop()) {
      writeAll(batch, sent);
      return;
    }
    try {
      loop.execute(() -> writeAll(batch, sent));
    } catch (RejectedExecutionException loopStopped) {
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

  @Override
  public String toString() {
    return "stream " + Integer.toUnsignedString(streamId) + " on " + channel;
  }
}
