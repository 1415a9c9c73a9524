package dev.tether.server;

import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.DatagramFrameDecoder;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.FrameEncoder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import java.util.List;
import java.util.function.Consumer;

/**
 * How a server sets up each channel it accepts: a stream connection gets the frame codec and its
 * {@link ServerConnection}, which reads nothing until the server has counted it in; a datagram
 * channel gets the datagram decoder and dispatch. Runs in the channels' initializers, on their
 * loops.
 */
final class ServerPipelines {
  private final ConnectionHost host;
  private final BodyCompression.Settings compression;
  private final int maxFrameSize;

  /** Counts a new connection in (or turns it away); the connection reads nothing until then. */
  private final Consumer<ServerConnection> admission;

  private final Dispatcher dispatcher;

  /** The protocols the stream endpoints speak beside Tether's, chosen by a connection's preface. */
  private final List<ProtocolHost> others;

  private final ServerClock clock;
  private final long handshakeTimeoutNanos;

  ServerPipelines(
      ConnectionHost host,
      BodyCompression.Settings compression,
      int maxFrameSize,
      Consumer<ServerConnection> admission,
      Dispatcher dispatcher,
      List<ProtocolHost> others,
      ServerClock clock,
      long handshakeTimeoutNanos) {
    this.host = host;
    this.compression = compression;
    this.maxFrameSize = maxFrameSize;
    this.admission = admission;
    this.dispatcher = dispatcher;
    this.others = others;
    this.clock = clock;
    this.handshakeTimeoutNanos = handshakeTimeoutNanos;
  }

  ChannelInitializer<Channel> stream() {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        PrefaceSniffer.install(
            ch, others, ServerPipelines.this::serveTether, clock, handshakeTimeoutNanos);
      }
    };
  }

  /** Installs Tether's protocol on a stream connection. */
  private void serveTether(Channel ch) {
    BodyCompression bodies = compression.forConnection();
    ServerConnection connection = new ServerConnection(host, ch, bodies);
    ch.pipeline()
        .addLast("frame-decoder", new FrameDecoder(FrameDecoder.Side.SERVER, maxFrameSize, bodies))
        .addLast("frame-encoder", FrameEncoder.INSTANCE)
        .addLast("connection", connection);
    // Nothing is read until the connection is counted in (or turned away).
    connection.awaitAdmission();
    admission.accept(connection);
  }

  ChannelInitializer<Channel> datagram() {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        ch.pipeline()
            .addLast("datagram-decoder", new DatagramFrameDecoder())
            .addLast("datagrams", new DatagramServerHandler(dispatcher));
      }
    };
  }
}
