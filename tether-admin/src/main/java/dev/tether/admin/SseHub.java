package dev.tether.admin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open {@code /events} streams. A stream whose socket cannot take more (its channel is not
 * writable: the outbound buffer passed the high water mark the admin server sets) is closed rather
 * than queued for, so a slow or stalled page costs at most one water mark of memory.
 */
final class SseHub {
  /** More pages than this at once are refused with 503: each holds a buffer. */
  static final int MAX_STREAMS = 32;

  private final Set<Channel> streams = ConcurrentHashMap.newKeySet();

  /** Adds a stream whose response headers were written; false when the hub is full. */
  boolean add(Channel channel) {
    if (streams.size() >= MAX_STREAMS) {
      return false;
    }
    streams.add(channel);
    channel.closeFuture().addListener(f -> streams.remove(channel));
    return true;
  }

  int size() {
    return streams.size();
  }

  boolean isEmpty() {
    return streams.isEmpty();
  }

  /** Sends one server-sent event to every stream, dropping those that fell behind. */
  void broadcast(String event, String data) {
    if (streams.isEmpty()) {
      return;
    }
    ByteBuf frame = frame(event, data);
    try {
      for (Channel c : streams) {
        send(c, frame.retainedDuplicate());
      }
    } finally {
      frame.release();
    }
  }

  /** Sends one event to one stream (the first message of a page that just connected). */
  static void send(Channel c, String event, String data) {
    send(c, frame(event, data));
  }

  private static void send(Channel c, ByteBuf frame) {
    if (!c.isWritable()) {
      frame.release();
      c.close();
      return;
    }
    c.writeAndFlush(new DefaultHttpContent(frame))
        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
  }

  private static ByteBuf frame(String event, String data) {
    // JSON from Jackson has no raw newline, so one data line carries it whole.
    String text = "event: " + event + "\ndata: " + data + "\n\n";
    return Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8));
  }

  void closeAll() {
    for (Channel c : streams) {
      c.close();
    }
  }
}
