package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The transport timeout's decision on literal times: no sockets, no waiting. */
class ProgressWatchTest {
  private static final long MS = 1_000_000L;

  private final AtomicLong now = new AtomicLong(1_000 * MS);
  private final List<Long> expired = new ArrayList<>();
  private boolean outstanding = true;
  private final ProgressWatch watch = new ProgressWatch(
      Duration.ofMillis(100), now::get, new EmbeddedChannel().eventLoop(), new ProgressWatch.Owner() {
        @Override
        public boolean hasOutstandingRequests() {
          return outstanding;
        }

        @Override
        public void onNoProgress(long silentNanos) {
          expired.add(silentNanos / MS);
        }
      });

  @Test
  void busyConnectionSilentForTheTimeoutExpires() {
    watch.onRequestSent();
    assertThat(watch.runOnce(now.get() + 99 * MS)).isEqualTo(1 * MS);
    assertThat(expired).isEmpty();
    assertThat(watch.runOnce(now.get() + 100 * MS)).isEqualTo(-1);
    assertThat(expired).containsExactly(100L);
  }

  @Test
  void readsPostponeTheTimeout() {
    watch.onRequestSent();
    now.addAndGet(80 * MS);
    watch.onRead();
    assertThat(watch.runOnce(now.get() + 50 * MS)).isEqualTo(50 * MS);
    assertThat(expired).isEmpty();
  }

  @Test
  void idleConnectionNeverExpiresHoweverLongItIsSilent() {
    watch.onRequestSent();
    outstanding = false;
    assertThat(watch.runOnce(now.get() + 3_600_000 * MS)).isEqualTo(-1);
    assertThat(expired).isEmpty();
  }

  @Test
  void silenceIsMeasuredFromTheRequestWhenTheConnectionWasIdle() {
    watch.onRead();
    now.addAndGet(10_000 * MS);
    watch.onRequestSent();
    assertThat(watch.runOnce(now.get() + 10 * MS)).isEqualTo(90 * MS);
    assertThat(expired).isEmpty();
  }
}
