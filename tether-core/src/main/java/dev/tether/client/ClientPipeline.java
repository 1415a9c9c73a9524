package dev.tether.client;

import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.FrameEncoder;
import dev.tether.protocol.ProtocolViolation;
import dev.tether.stream.ChannelLink;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channel of one {@link ClientConnection}: lays out its pipeline (the frame decoder, which
 * hands answers straight to the connection, the encoder, the {@link ClientFrameReader}, then the
 * channel's lifecycle) and makes the connection's batch writer for it. The lifecycle handler turns
 * what the channel reports into the connection's terms: once active the preface and HELLO go out, a
 * protocol violation or an exception becomes the close's cause, writability wakes the writer, and
 * inactive ends the connection. On the channel's event loop.
 */
final class ClientPipeline extends ChannelInitializer<Channel> {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");

  private final ClientConnection connection;
  private final PendingCalls pending;
  private final CallBacklog backlog;
  private final ConnectionWatch watch;
  private final AnnouncedTopology topology;
  private final CloseCause closing;
  private final ClientHandshake handshake;
  private final BodyCompression compression;

  ClientPipeline(
      ClientConnection connection,
      PendingCalls pending,
      CallBacklog backlog,
      ConnectionWatch watch,
      AnnouncedTopology topology,
      CloseCause closing,
      ClientHandshake handshake,
      BodyCompression compression) {
    this.connection = connection;
    this.pending = pending;
    this.backlog = backlog;
    this.watch = watch;
    this.topology = topology;
    this.closing = closing;
    this.handshake = handshake;
    this.compression = compression;
  }

  @Override
  protected void initChannel(Channel ch) {
    CallBatchWriter writer =
        new CallBatchWriter(ch, connection, pending, backlog, watch, compression);
    connection.attach(ch, writer);
    FrameDecoder decoder =
        new FrameDecoder(FrameDecoder.Side.CLIENT, connection.host.maxFrameSize(), compression);
    decoder.setResponseSink(connection);
    ch.pipeline()
        .addLast("frame-decoder", decoder)
        .addLast("frame-encoder", FrameEncoder.INSTANCE)
        .addLast(
            "frame-reader",
            new ClientFrameReader(connection, watch, topology, pending, closing, handshake))
        .addLast("connection", new Lifecycle(writer));
  }

  /** The channel's lifecycle, as the connection hears it; the pipeline's last handler. */
  private final class Lifecycle extends ChannelInboundHandlerAdapter {
    private final CallBatchWriter writer;

    Lifecycle(CallBatchWriter writer) {
      this.writer = writer;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      handshake.sayHello(ctx, compression);
      ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ProtocolViolation v) {
        closing.failedBecause(v.cause());
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      closing.failedWith(cause);
      log.debug("{} failed: {}", connection, cause.toString());
      ctx.close();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (ctx.channel().isWritable()) {
        writer.onWritable();
        ChannelLink.writabilityChanged(ctx.channel());
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      connection.onClosed();
      ctx.fireChannelInactive();
    }
  }
}
