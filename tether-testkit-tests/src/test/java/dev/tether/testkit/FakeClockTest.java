package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FakeClockTest {
  private final FakeClock clock = new FakeClock(0);
  private final List<String> ran = new ArrayList<>();

  @Test
  void tasksRunOnlyWhenTimeReachesThem() {
    clock.schedule(() -> ran.add("10ms"), Duration.ofMillis(10).toNanos());
    clock.forward(Duration.ofMillis(9));
    assertThat(ran).isEmpty();
    clock.forward(Duration.ofMillis(1));
    assertThat(ran).containsExactly("10ms");
  }

  @Test
  void tasksRunInDueOrderAndSeeTheirOwnTime() {
    List<Long> seen = new ArrayList<>();
    clock.schedule(() -> seen.add(clock.nanoTime()), 30);
    clock.schedule(() -> seen.add(clock.nanoTime()), 10);
    clock.forward(Duration.ofNanos(100));
    assertThat(seen).containsExactly(10L, 30L);
    assertThat(clock.nanoTime()).isEqualTo(100);
  }

  @Test
  void taskScheduledByATaskRunsInTheSameForwardWhenDue() {
    clock.schedule(() -> clock.schedule(() -> ran.add("second"), 5), 5);
    clock.forward(Duration.ofNanos(10));
    assertThat(ran).containsExactly("second");
  }

  @Test
  void cancelledTaskNeverRuns() {
    clock.schedule(() -> ran.add("x"), 5).cancel();
    clock.forward(Duration.ofSeconds(1));
    assertThat(ran).isEmpty();
    assertThat(clock.pendingTasks()).isZero();
  }
}
