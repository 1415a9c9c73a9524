package dev.tether.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import dev.tether.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class EventBusTest {
  private final ManualClock clock = new ManualClock(0);

  @Test
  void withoutListenersNothingIsDeliveredAndTheBusIsOff() {
    EventBus bus = new EventBus(List.of(), clock, "test-events");
    assertThat(bus.isOn()).isFalse();
    Sequence late = new Sequence();
    bus.emit(TetherEvent.Kind.CONNECTING, null, "0", null);
    bus.add(late);
    assertThat(bus.isOn()).isTrue();
    assertThat(bus.remove(late)).isTrue();
    assertThat(bus.isOn()).isFalse();
    bus.close();
    assertThat(late.seen).isEmpty();
  }

  @Test
  void listenersComingAndGoingOnOtherThreadsEachSeeAnUnbrokenRunInEmissionOrder() throws Exception {
    EventBus bus = new EventBus(List.of(), clock, "test-events");
    List<Sequence> windows = new CopyOnWriteArrayList<>();
    AtomicBoolean emitting = new AtomicBoolean(true);
    ExecutorService churn = Executors.newFixedThreadPool(3);
    CountDownLatch started = new CountDownLatch(3);
    List<Future<?>> churners = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      churners.add(
          churn.submit(
              () -> {
                started.countDown();
                for (int i = 0; i < 200 && emitting.get(); i++) {
                  Sequence s = new Sequence();
                  windows.add(s);
                  bus.add(s);
                  Thread.yield();
                  assertThat(bus.remove(s)).isTrue();
                }
              }));
    }
    started.await();
    int sent = 0;
    for (; sent < 100_000 && !churners.stream().allMatch(Future::isDone); sent++) {
      bus.emit(TetherEvent.Kind.CONNECTING, null, Integer.toString(sent), null);
    }
    int emitted = sent;
    emitting.set(false);
    for (Future<?> f : churners) {
      f.get();
    }
    Sequence everything = new Sequence();
    bus.add(everything);
    bus.emit(TetherEvent.Kind.CONNECTING, null, Integer.toString(emitted), null);
    await().atMost(Duration.ofSeconds(10)).until(() -> everything.seen.equals(List.of(emitted)));
    bus.close();
    churn.shutdown();

    for (Sequence s : windows) {
      for (int i = 1; i < s.seen.size(); i++) {
        assertThat(s.seen.get(i))
            .as("a run without gaps or reordering")
            .isEqualTo(s.seen.get(i - 1) + 1);
      }
    }
    assertThat(windows.stream().mapToInt(s -> s.seen.size()).sum())
        .as("some windows saw events")
        .isPositive();
  }

  /** Records the numbers in the details of CONNECTING events. */
  private static final class Sequence implements TetherListener {
    final List<Integer> seen = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onEvent(TetherEvent event) {
      if (event.kind() == TetherEvent.Kind.CONNECTING) {
        seen.add(Integer.parseInt(event.detail()));
      }
    }
  }
}
