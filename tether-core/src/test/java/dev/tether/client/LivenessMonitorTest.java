package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The liveness rules on literal times: heartbeats and the transport timeout, no waiting. */
class LivenessMonitorTest {
  private static final long MS = 1_000_000L;

  private final AtomicLong now = new AtomicLong(1_000_000 * MS);
  private final List<String> events = new ArrayList<>();
  private boolean outstanding;
  private final List<Long> scheduledDelaysNanos = new ArrayList<>();
  private final List<Runnable> scheduled = new ArrayList<>();

  private LivenessMonitor monitor(long readerIdleMs, long idleTimeoutMs, long transportTimeoutMs) {
    return monitor(
        new LivenessMonitor.Settings(
            readerIdleMs * MS, idleTimeoutMs * MS, transportTimeoutMs * MS));
  }

  private LivenessMonitor monitor(LivenessMonitor.Settings settings) {
    return new LivenessMonitor(
        settings,
        now::get,
        (task, delayNanos) -> {
          scheduledDelaysNanos.add(delayNanos);
          scheduled.add(task);
          return () -> scheduled.remove(task);
        },
        new LivenessMonitor.Owner() {
          @Override
          public boolean hasOutstandingRequests() {
            return outstanding;
          }

          @Override
          public void sendPing() {
            events.add("ping@" + (now.get() / MS));
          }

          @Override
          public void onPeerSilent(String reason) {
            events.add("dead: " + reason);
          }
        });
  }

  private long at(long ms) {
    return now.get() + ms * MS;
  }

  @Test
  void startedMonitorSchedulesItsChecksThroughTheInjectedSchedulerAndStopCancelsThem() {
    LivenessMonitor m = monitor(3_000, 10_000, 0);
    m.start();
    assertThat(scheduledDelaysNanos).containsExactly(3_000 * MS);
    now.addAndGet(3_000 * MS);
    scheduled.remove(0).run();
    assertThat(events).containsExactly("ping@1003000");
    assertThat(scheduledDelaysNanos).hasSize(2);
    m.stop();
    assertThat(scheduled).isEmpty();
  }

  @Test
  void silentConnectionIsPingedAfterReaderIdle() {
    LivenessMonitor m = monitor(3_000, 10_000, 0);
    assertThat(m.runOnce(at(2_999))).isEqualTo(1 * MS);
    assertThat(events).isEmpty();
    m.runOnce(at(3_000));
    assertThat(events).hasSize(1).allMatch(e -> e.startsWith("ping"));
  }

  @Test
  void silentConnectionIsPingedAgainEveryReaderIdle() {
    LivenessMonitor m = monitor(3_000, 10_000, 0);
    m.runOnce(at(3_000));
    assertThat(m.runOnce(at(4_000))).isEqualTo(2_000 * MS);
    m.runOnce(at(6_000));
    m.runOnce(at(9_000));
    assertThat(events).hasSize(3).allMatch(e -> e.startsWith("ping"));
  }

  @Test
  void connectionSilentForIdleTimeoutIsDead() {
    LivenessMonitor m = monitor(3_000, 10_000, 0);
    m.runOnce(at(9_999));
    assertThat(events).noneMatch(e -> e.startsWith("dead"));
    assertThat(m.runOnce(at(10_000))).isEqualTo(-1);
    assertThat(events).last().asString().startsWith("dead: heartbeat: nothing read for 10000 ms");
  }

  @Test
  void frozenPeerIsDetectedWithinIdleTimeoutPlusOneReaderIdle() {
    LivenessMonitor m = monitor(3_000, 10_000, 0);
    // Follow the monitor's own schedule, as the event loop would.
    long t = 0;
    long delay = m.runOnce(at(t));
    while (delay >= 0 && t <= 13_000) {
      t += delay / MS;
      delay = m.runOnce(at(t));
    }
    assertThat(events).last().asString().startsWith("dead");
    assertThat(t).isLessThanOrEqualTo(10_000 + 3_000);
  }

  @Test
  void readsKeepTheConnectionAliveWithoutPings() {
    LivenessMonitor m = monitor(3_000, 10_000, 0);
    for (int i = 1; i <= 10; i++) {
      now.addAndGet(2_000 * MS);
      m.onRead();
      m.runOnce(now.get());
    }
    assertThat(events).isEmpty();
  }

  @Test
  void busyConnectionSilentForItsTransportTimeoutIsDead() {
    LivenessMonitor m = monitor(0, 0, 100);
    outstanding = true;
    m.onBecameBusy();
    assertThat(m.runOnce(at(99))).isEqualTo(1 * MS);
    assertThat(m.runOnce(at(100))).isEqualTo(-1);
    assertThat(events)
        .containsExactly(
            "dead: transport timeout: nothing read for 100 ms with requests outstanding");
  }

  @Test
  void idleConnectionNeverHitsItsTransportTimeout() {
    LivenessMonitor m = monitor(0, 0, 100);
    outstanding = false;
    assertThat(m.runOnce(at(3_600_000))).isEqualTo(-1);
    assertThat(events).isEmpty();
  }

  @Test
  void transportTimeoutCountsFromTheRequestThatMadeAnIdleConnectionBusy() {
    LivenessMonitor m = monitor(0, 0, 100);
    now.addAndGet(10_000 * MS);
    outstanding = true;
    m.onBecameBusy();
    assertThat(m.runOnce(at(10))).isEqualTo(90 * MS);
    assertThat(events).isEmpty();
  }

  @Test
  void zeroSettingsTurnEveryRuleOff() {
    assertThat(new LivenessMonitor.Settings(0, 0, 0).isOff()).isTrue();
    LivenessMonitor m = monitor(0, 0, 0);
    outstanding = true;
    assertThat(m.runOnce(at(1_000_000))).isEqualTo(-1);
    assertThat(events).isEmpty();
  }

  @Test
  void connectionThatWroteNothingForTheServersKeepaliveIsPingedEvenWhileItReads() {
    LivenessMonitor m =
        monitor(new LivenessMonitor.Settings(3_000 * MS, 10_000 * MS, 0, 1_000 * MS));
    assertThat(m.runOnce(now.get())).isEqualTo(1_000 * MS);
    now.addAndGet(900 * MS);
    m.onRead(); // the server talks, but it hears nothing from us
    m.runOnce(now.get());
    assertThat(events).isEmpty();
    now.addAndGet(100 * MS);
    m.runOnce(now.get());
    assertThat(events).containsExactly("ping@1001000");
  }

  @Test
  void writtenRequestsPostponeTheKeepalivePing() {
    LivenessMonitor m = monitor(new LivenessMonitor.Settings(0, 0, 0, 1_000 * MS));
    now.addAndGet(800 * MS);
    m.onWrite();
    now.addAndGet(200 * MS);
    assertThat(m.runOnce(now.get())).isEqualTo(800 * MS);
    assertThat(events).isEmpty();
    now.addAndGet(800 * MS);
    m.runOnce(now.get());
    assertThat(events).containsExactly("ping@1001800");
  }
}
