package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.FrameEncoder;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Hello;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Welcome;
import dev.tether.transport.LocalTransport;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A server a test scripts frame by frame over the in-JVM transport: it answers HELLO with its
 * preface (announcing {@code minor}) and WELCOME, and otherwise only records what each connection
 * sent, for the test to read and answer by hand. Nothing here knows streams: the test plays the
 * server's part.
 */
final class ScriptedStreamServer implements AutoCloseable {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private final LocalTransport transport = new LocalTransport();
  private final SocketAddress address;
  private final int port;
  private final int minor;
  private final Channel listener;
  private final BlockingQueue<Peer> accepted = new LinkedBlockingQueue<>();

  /** One connection the client opened: what it sent, and a way to answer. */
  static final class Peer {
    private final Channel channel;
    private final BlockingQueue<Frame> received = new LinkedBlockingQueue<>();

    private Peer(Channel channel) {
      this.channel = channel;
    }

    /** The next frame the client sent on this connection, which must be a {@code type}. */
    <T extends Frame> T next(Class<T> type) {
      Frame frame;
      try {
        frame = received.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      assertThat(frame).as("a frame from the client within %s", PATIENCE).isInstanceOf(type);
      return type.cast(frame);
    }

    void send(Frame... frames) {
      for (Frame f : frames) {
        channel.write(f);
      }
      channel.flush();
    }

    /** Breaks the connection, as a lost network would. */
    void breakConnection() {
      channel.close().syncUninterruptibly();
    }

    /** True when the client sent nothing more so far. */
    boolean receivedNothingMore() {
      return received.isEmpty();
    }
  }

  ScriptedStreamServer(String host, int minor) {
    this.minor = minor;
    SocketAddress wanted = transport.address(host, 0);
    this.port = LocalTransport.portOf(wanted);
    this.address = wanted;
    this.listener = transport.bind(wanted, new Initializer()).syncUninterruptibly().channel();
  }

  /** The endpoint a proxy dials to reach this server. */
  String endpoint(String host) {
    return "local -h " + host + " -p " + port;
  }

  /** The next connection the client opened and completed the handshake on. */
  Peer nextConnection() {
    try {
      Peer p = accepted.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(p).as("a connection within %s", PATIENCE).isNotNull();
      return p;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next connection if one completed its handshake; null otherwise, without waiting. */
  Peer pollConnection() {
    return accepted.poll();
  }

  SocketAddress address() {
    return address;
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
  }

  private final class Initializer extends ChannelInitializer<Channel> {
    @Override
    protected void initChannel(Channel ch) {
      Peer peer = new Peer(ch);
      ch.pipeline()
          .addLast(new FrameDecoder(FrameDecoder.Side.SERVER, 1 << 20))
          .addLast(FrameEncoder.INSTANCE)
          .addLast(new Recorder(peer));
    }
  }

  private final class Recorder extends SimpleChannelInboundHandler<Frame> {
    private final Peer peer;

    Recorder(Peer peer) {
      this.peer = peer;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
      if (frame instanceof Hello) {
        ByteBuf out = ctx.alloc().buffer();
        out.writeInt(ProtocolVersion.MAGIC);
        out.writeByte(ProtocolVersion.MAJOR);
        out.writeByte(minor);
        out.writeShort(0);
        FrameWriter.encode(new Welcome("scripted", "1.0", 0, 1 << 20, 10_000, "", List.of()), out);
        ctx.writeAndFlush(out);
        accepted.add(peer);
        return;
      }
      peer.received.add(frame);
    }
  }
}
