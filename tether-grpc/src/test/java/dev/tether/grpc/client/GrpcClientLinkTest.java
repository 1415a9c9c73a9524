package dev.tether.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.spi.ClientWireProtocol;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.testing.ManualClock;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The link on a real loopback connection to a server that only says its SETTINGS and reads: what
 * leaves for the wire and how often the socket is flushed.
 */
class GrpcClientLinkTest {
  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger flushes = new AtomicInteger();
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());

  @AfterEach
  void stop() {
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void callsWrittenInOneTurnOfTheLoopLeaveWithOneFlush() throws Exception {
    Channel server = silentServer();
    GrpcClientLink link = new GrpcClientLink.Builder(new Owner(), KeepalivePolicy.OFF).build();
    Channel client =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(new FlushCounter(), link);
                  }
                })
            .connect(server.localAddress())
            .sync()
            .channel();
    await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("ready"));

    int flushedWhileSending =
        client
            .eventLoop()
            .submit(
                () -> {
                  flushes.set(0);
                  for (int i = 0; i < 3; i++) {
                    link.send(new Unary());
                  }
                  return flushes.get();
                })
            .get(10, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> events.stream().filter("written"::equals).count() == 3);

    assertThat(flushedWhileSending).isZero();
    assertThat(flushes.get()).isEqualTo(1);
    assertThat(client.eventLoop().submit(link::activeCalls).get(10, TimeUnit.SECONDS)).isEqualTo(3);
    client.close().sync();
    server.close().sync();
  }

  /** Says an empty SETTINGS (a server's whole preface) and reads whatever comes. */
  private Channel silentServer() throws InterruptedException {
    return new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelActive(ChannelHandlerContext ctx) {
                ctx.writeAndFlush(emptySettings());
              }

              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ReferenceCountUtil.release(msg);
              }
            })
        .bind("127.0.0.1", 0)
        .sync()
        .channel();
  }

  /** A SETTINGS frame with no settings: the server's whole preface. */
  private static ByteBuf emptySettings() {
    return Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});
  }

  private final class FlushCounter extends ChannelOutboundHandlerAdapter {
    @Override
    public void flush(ChannelHandlerContext ctx) {
      flushes.incrementAndGet();
      ctx.flush();
    }
  }

  private final class Owner implements ClientWireProtocol.Connection {
    @Override
    public String authority() {
      return "127.0.0.1:1";
    }

    @Override
    public Ticker ticker() {
      return clock;
    }

    @Override
    public Scheduler.Cancellable schedule(Runnable task, long delayNanos) {
      return clock.schedule(task, delayNanos);
    }

    @Override
    public void onReady(String summary) {
      events.add("ready");
    }

    @Override
    public void onGoingAway(String why) {
      events.add("going away");
    }

    @Override
    public void onFailed(Throwable cause) {
      events.add("failed: " + cause);
    }

    @Override
    public void onRoom() {}
  }

  private final class Unary implements ClientWireProtocol.Call {
    @Override
    public String service() {
      return "test.Echo";
    }

    @Override
    public String operation() {
      return "test.Echo/Say";
    }

    @Override
    public Map<String, String> metadata() {
      return Map.of();
    }

    @Override
    public byte[] body() {
      return Envelopes.request(new DefaultHttp2Headers(false), new byte[] {1, 2, 3}, 0, false);
    }

    @Override
    public long remainingMillis() {
      return 0;
    }

    @Override
    public void onWritten() {
      events.add("written");
    }

    @Override
    public void onAnswer(byte[] body, ClientWireProtocol.Blame blame) {
      events.add("answer");
    }

    @Override
    public void onStreamAccepted(byte[] body) {
      events.add("stream accepted");
    }

    @Override
    public void onStreamEnd(ClientWireProtocol.Blame blame) {}

    @Override
    public void onFailedAnswer(
        byte[] body,
        ClientWireProtocol.Blame blame,
        String status,
        String detail,
        boolean retryable) {
      events.add("failed answer: " + status);
    }

    @Override
    public void onRefused(String why) {
      events.add("refused: " + why);
    }

    @Override
    public void onLost(Throwable cause) {
      events.add("lost: " + cause);
    }
  }
}
