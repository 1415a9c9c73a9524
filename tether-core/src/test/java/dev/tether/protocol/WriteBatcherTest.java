package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WriteBatcher} over a channel whose loop is a thread of its own: its queue is made by the
 * first enqueue (so several threads racing to be first must all land in one queue), a burst longer
 * than one chunk of the queue is written whole and in order, and a batcher that never queued
 * anything has nothing to write or discard.
 */
class WriteBatcherTest {
  private final DefaultEventLoopGroup loops = new DefaultEventLoopGroup(1);

  /** The ints that reached the pipeline's end, in order. */
  private final List<Integer> written = new CopyOnWriteArrayList<>();

  private Channel server;
  private Channel channel;

  @BeforeEach
  void connect() throws InterruptedException {
    LocalAddress address = new LocalAddress("write-batcher-" + System.nanoTime());
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
    channel.close().syncUninterruptibly();
    server.close().syncUninterruptibly();
    loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Takes each batch apart into its ints; the bytes go no further. */
  private final class Recorder extends ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      ByteBuf batch = (ByteBuf) msg;
      while (batch.isReadable()) {
        written.add(batch.readInt());
      }
      batch.release();
      promise.trySuccess();
    }
  }

  /** Writes each int as 4 bytes and remembers what it was told to discard. */
  private static final class IntBatcher extends WriteBatcher<Integer> {
    final List<Integer> discarded = new ArrayList<>();

    IntBatcher(Channel channel) {
      super(channel);
    }

    @Override
    protected void encode(Integer item, ByteBuf out) {
      out.writeInt(item);
    }

    @Override
    protected void discard(Integer item) {
      discarded.add(item);
    }
  }

  /** Waits until the loop ran every task handed to it before now. */
  private void drainLoop() {
    channel.eventLoop().submit(() -> {}).syncUninterruptibly();
  }

  @Test
  void aBatcherThatNeverQueuedHasNothingToDiscard() {
    IntBatcher batcher = new IntBatcher(channel);
    channel.eventLoop().submit(batcher::discardQueued).syncUninterruptibly();
    assertThat(batcher.discarded).isEmpty();
    assertThat(written).isEmpty();
  }

  @Test
  void aDrainBeforeAnythingWasQueuedWritesNothingAndLaterItemsStillGo() {
    IntBatcher batcher = new IntBatcher(channel);
    channel.eventLoop().submit(batcher).syncUninterruptibly();
    assertThat(written).isEmpty();
    batcher.enqueue(7);
    drainLoop();
    assertThat(written).containsExactly(7);
  }

  @Test
  void aBurstLongerThanOneQueueChunkIsWrittenWholeAndInOrder() {
    IntBatcher batcher = new IntBatcher(channel);
    CompletableFuture.runAsync(
            () -> {
              for (int i = 0; i < 5_000; i++) {
                batcher.enqueue(i);
              }
            })
        .join();
    drainLoop();
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      expected.add(i);
    }
    assertThat(written).containsExactlyElementsOf(expected);
  }

  @Test
  void threadsRacingToQueueFirstAllLandInOneQueue() throws InterruptedException {
    for (int round = 0; round < 50; round++) {
      written.clear();
      IntBatcher batcher = new IntBatcher(channel);
      int threads = 4;
      CountDownLatch start = new CountDownLatch(1);
      List<CompletableFuture<Void>> producers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int base = t * 1_000;
        producers.add(
            CompletableFuture.runAsync(
                () -> {
                  awaitQuietly(start);
                  for (int i = 0; i < 100; i++) {
                    batcher.enqueue(base + i);
                  }
                },
                runnable -> new Thread(runnable).start()));
      }
      start.countDown();
      CompletableFuture.allOf(producers.toArray(new CompletableFuture<?>[0])).join();
      drainLoop();
      assertThat(written).as("round " + round).hasSize(threads * 100).doesNotHaveDuplicates();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
