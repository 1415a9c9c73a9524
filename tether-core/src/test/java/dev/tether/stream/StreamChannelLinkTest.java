package dev.tether.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.tether.protocol.Frame;
import dev.tether.protocol.StreamItem;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ChannelLink} over a channel whose loop is a thread of its own, written from another thread
 * as a stream's context does: nothing leaves before a flush, a flush hands every held frame over in
 * order with one channel flush, a long run hands over every {@link ChannelLink#MAX_HELD} frames,
 * and a flush after the loop stopped is dropped quietly.
 */
class StreamChannelLinkTest {
  private final DefaultEventLoopGroup loops = new DefaultEventLoopGroup(1);
  private final List<Frame> written = new CopyOnWriteArrayList<>();
  private final AtomicInteger flushes = new AtomicInteger();
  private Channel server;
  private Channel channel;

  @BeforeEach
  void connect() throws InterruptedException {
    LocalAddress address = new LocalAddress("stream-channel-link-" + System.nanoTime());
    server =
        new ServerBootstrap()
            .group(loops)
            .channel(LocalServerChannel.class)
            .childHandler(new ChannelInboundHandlerAdapter())
            .bind(address)
            .sync()
            .channel();
    channel =
        new Bootstrap()
            .group(loops)
            .channel(LocalChannel.class)
            .handler(new Recorder())
            .connect(address)
            .sync()
            .channel();
  }

  @AfterEach
  void stop() {
    if (!loops.isShuttingDown()) { // one test stops the loop itself, and the channels with it
      channel.close().syncUninterruptibly();
      server.close().syncUninterruptibly();
    }
    loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Records what reaches the pipeline's tail end; the frames go no further. */
  private final class Recorder extends ChannelOutboundHandlerAdapter {
    private final List<ChannelPromise> unflushed = new java.util.ArrayList<>();

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      written.add((Frame) msg);
      unflushed.add(promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
      flushes.incrementAndGet();
      unflushed.forEach(ChannelPromise::trySuccess); // as a socket that took every byte
      unflushed.clear();
    }
  }

  private static StreamItem item(long position) {
    return new StreamItem(7, position, new byte[] {(byte) position});
  }

  /** Waits until the loop ran every task handed to it before now. */
  private void loopCaughtUp() throws InterruptedException {
    channel.eventLoop().submit(() -> {}).sync();
  }

  @Test
  void heldFramesLeaveInOrderWithOneFlushWhenFlushed() throws InterruptedException {
    ChannelLink link = new ChannelLink(channel, 7);
    List<StreamItem> items =
        IntStream.rangeClosed(1, 5).mapToObj(StreamChannelLinkTest::item).toList();

    items.forEach(link::write);
    loopCaughtUp();
    assertThat(written).isEmpty();

    link.flush();
    loopCaughtUp();
    assertThat(written).containsExactlyElementsOf(items);
    assertThat(flushes).hasValue(1);

    link.flush(); // nothing held: nothing to hand over
    loopCaughtUp();
    assertThat(flushes).hasValue(1);
  }

  @Test
  void longRunHandsOverEveryMaxHeldFramesWithoutWaitingForItsEnd() throws InterruptedException {
    ChannelLink link = new ChannelLink(channel, 7);

    for (int i = 1; i <= ChannelLink.MAX_HELD + 3; i++) {
      link.write(item(i));
    }
    loopCaughtUp();
    assertThat(written).hasSize(ChannelLink.MAX_HELD);

    link.flush();
    loopCaughtUp();
    assertThat(written)
        .extracting(f -> ((StreamItem) f).position())
        .containsExactlyElementsOf(
            IntStream.rangeClosed(1, ChannelLink.MAX_HELD + 3).mapToObj(i -> (long) i).toList());
  }

  @Test
  void writesOnTheLoopItselfLeaveAtOnceOnFlush() throws Exception {
    ChannelLink link = new ChannelLink(channel, 7);

    StreamItem one = item(1);

    channel
        .eventLoop()
        .submit(
            () -> {
              link.write(one);
              link.flush();
              assertThat(written)
                  .containsExactly(one); // in the loop: no hand-over, written before flush returns
            })
        .sync();
  }

  @Test
  void flushAndWaitCompletesOnceEveryHeldFrameWasWritten() throws Exception {
    ChannelLink link = new ChannelLink(channel, 7);
    assertThat(link.flushAndWait()).isCompleted(); // nothing held: nothing to wait for

    IntStream.rangeClosed(1, 3).forEach(i -> link.write(item(i)));
    int seenWhenDone =
        link.flushAndWait().thenApply(done -> written.size()).get(5, TimeUnit.SECONDS);

    assertThat(seenWhenDone).isEqualTo(3);
  }

  @Test
  void flushAfterTheLoopStoppedIsDroppedQuietly() {
    ChannelLink link = new ChannelLink(channel, 7);
    link.write(item(1));
    loops.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();

    assertThatCode(link::flush).doesNotThrowAnyException();
    assertThat(written).isEmpty();
  }
}
