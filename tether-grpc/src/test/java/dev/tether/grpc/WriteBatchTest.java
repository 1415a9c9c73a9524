package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WriteBatchTest {
  @Test
  void eventsStartedDuringAReadReachTheExecutorAsOneTaskWhenTheReadEnds() {
    WriteBatch batch = new WriteBatch(ImmediateEventExecutor.INSTANCE, () -> {});
    List<Runnable> handedOff = new ArrayList<>();
    SerialTasks call =
        new SerialTasks(handedOff::add, handedOff::add, (task, delay) -> () -> {}, batch);
    List<String> ran = new ArrayList<>();

    batch.reading();
    call.execute(() -> ran.add("start"));
    call.execute(() -> ran.add("message"));
    call.execute(() -> ran.add("half-close"));
    assertThat(handedOff).isEmpty();

    batch.readComplete();
    assertThat(handedOff).hasSize(1);
    handedOff.get(0).run();
    assertThat(ran).containsExactly("start", "message", "half-close");
  }

  @Test
  void eventsStartedOutsideAReadReachTheExecutorAtOnce() {
    WriteBatch batch = new WriteBatch(ImmediateEventExecutor.INSTANCE, () -> {});
    List<Runnable> handedOff = new ArrayList<>();
    SerialTasks call =
        new SerialTasks(handedOff::add, handedOff::add, (task, delay) -> () -> {}, batch);

    call.execute(() -> {});

    assertThat(handedOff).hasSize(1);
  }

  @Test
  void aLazyWriteWakesNoLoopAndGoesWithTheNextWriteInOrder() throws Exception {
    DefaultEventLoop loop = new DefaultEventLoop();
    try {
      WriteBatch batch = new WriteBatch(loop, () -> {});
      List<String> ran = new CopyOnWriteArrayList<>();

      batch.lazily(() -> ran.add("headers"));
      batch.lazily(() -> ran.add("message"));
      assertThat(loop.pendingTasks()).isZero();
      assertThat(ran).isEmpty();

      batch.execute(() -> ran.add("trailers"));
      await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 3);
      assertThat(ran).containsExactly("headers", "message", "trailers");
    } finally {
      loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    }
  }
}
