package dev.tether.server;

import dev.tether.spi.Scheduler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first handler of a stream connection on a server that speaks more than Tether's protocol:
 * reads the client's first bytes until they fit one protocol's preface only (the first byte, for
 * Tether against HTTP/2), hands the connection to that protocol, passes the bytes on and steps out
 * of the pipeline. Bytes that fit no preface go to Tether's pipeline, whose decoder rejects them as
 * it always did. A client that sends too little within the handshake timeout is closed. Lives on
 * the connection's event loop.
 */
final class PrefaceSniffer extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");

  /** The first bytes of Tether's preface: its magic. */
  private static final byte[] TETHER = "TETH".getBytes(StandardCharsets.US_ASCII);

  private final List<ProtocolHost> served;
  private final Consumer<Channel> serveTether;
  private final ServerClock clock;
  private final long timeoutNanos;

  /** What arrived before the decision; null before the first bytes and after the decision. */
  private ByteBuf seen;

  private Scheduler.Cancellable deadline;
  private boolean decided;

  /**
   * @param serveTether installs Tether's handlers on a channel
   * @param timeoutNanos how long a client may take to send enough to decide; 0 for no limit
   */
  PrefaceSniffer(
      List<ProtocolHost> served,
      Consumer<Channel> serveTether,
      ServerClock clock,
      long timeoutNanos) {
    this.served = served;
    this.serveTether = serveTether;
    this.clock = clock;
    this.timeoutNanos = timeoutNanos;
  }

  /**
   * Sets {@code channel} up: straight to Tether's pipeline when the server speaks nothing else,
   * else behind a sniffer.
   */
  static void install(
      Channel channel,
      List<ProtocolHost> served,
      Consumer<Channel> serveTether,
      ServerClock clock,
      long timeoutNanos) {
    if (served.isEmpty()) {
      serveTether.accept(channel);
    } else {
      channel
          .pipeline()
          .addLast("preface-sniffer", new PrefaceSniffer(served, serveTether, clock, timeoutNanos));
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      startDeadline(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    startDeadline(ctx);
    ctx.fireChannelActive();
  }

  private void startDeadline(ChannelHandlerContext ctx) {
    if (deadline == null && timeoutNanos > 0) {
      deadline = clock.schedule(ctx.channel(), () -> tooSlow(ctx), timeoutNanos);
    }
  }

  private void tooSlow(ChannelHandlerContext ctx) {
    if (!decided) {
      log.debug("{} sent no protocol preface in time: closing", ctx.channel().remoteAddress());
      ctx.close();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (decided || !(msg instanceof ByteBuf bytes)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (seen == null) {
      seen = bytes;
    } else {
      ByteBuf both = ctx.alloc().buffer(seen.readableBytes() + bytes.readableBytes());
      both.writeBytes(seen).writeBytes(bytes);
      seen.release();
      bytes.release();
      seen = both;
    }
    decide(ctx);
  }

  /**
   * Decides at once when TLS's ALPN named one of the protocols, else once the bytes seen fit at
   * most one protocol; else waits for more.
   */
  private void decide(ChannelHandlerContext ctx) {
    ProtocolHost other = chosenByAlpn(ctx);
    if (other == null) {
      int fitting = fits(TETHER) ? 1 : 0;
      for (ProtocolHost p : served) {
        if (fits(p.protocol().preface())) {
          fitting++;
          other = other == null ? p : other;
        }
      }
      if (fitting > 1) {
        return;
      }
    }
    decided = true;
    if (deadline != null) {
      deadline.cancel();
    }
    if (other != null) {
      other.protocol().serve(ctx.channel(), other);
    } else {
      serveTether.accept(ctx.channel());
    }
    ByteBuf first = seen;
    seen = null;
    ctx.fireChannelRead(first);
    ctx.pipeline().remove(this);
  }

  /** The protocol whose ALPN name the TLS handshake agreed on; null without TLS or ALPN. */
  private ProtocolHost chosenByAlpn(ChannelHandlerContext ctx) {
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    String chosen = tls == null ? null : tls.applicationProtocol();
    if (chosen != null) {
      for (ProtocolHost p : served) {
        if (chosen.equals(p.protocol().applicationProtocol())) {
          return p;
        }
      }
    }
    return null;
  }

  /** Whether the bytes seen so far are a beginning of {@code preface} (or it of them). */
  private boolean fits(byte[] preface) {
    int n = Math.min(preface.length, seen.readableBytes());
    int start = seen.readerIndex();
    for (int i = 0; i < n; i++) {
      if (seen.getByte(start + i) != preface[i]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    release();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    release();
    if (deadline != null) {
      deadline.cancel();
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // Before the decision no handler follows this one: the connection is of no use, close it.
    log.debug("closing {} before its protocol was known", ctx.channel().remoteAddress(), cause);
    ctx.close();
  }

  private void release() {
    if (seen != null) {
      ReferenceCountUtil.release(seen);
      seen = null;
    }
  }
}
