package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.internal.SerialExecutor;
import dev.tether.testing.ManualClock;
import dev.tether.transport.TlsWatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS file watch on a manual clock: it reloads once per change, and a failed reload is not its
 * end.
 */
class TlsWatchTest {
  private static final Duration EVERY = Duration.ofSeconds(30);

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final AtomicInteger reloads = new AtomicInteger();
  private boolean reloadFails;

  private TlsWatch watch(Path... files) {
    TlsWatch w =
        new TlsWatch(
            List.of(files),
            () -> {
              reloads.incrementAndGet();
              if (reloadFails) {
                throw new IllegalArgumentException("key does not match certificate");
              }
            },
            clock,
            new SerialExecutor(),
            EVERY.toNanos());
    w.start();
    return w;
  }

  /** Rewrites a file and moves its time on, since a fast rewrite may keep the same time. */
  private static void rewrite(Path file, String text, int secondsLater) throws IOException {
    Files.writeString(file, text);
    Files.setLastModifiedTime(file, FileTime.fromMillis(1_700_000_000_000L + secondsLater * 1000L));
  }

  @Test
  void reloadsOnceAtTheFirstCheckAfterAFileChangedAndNotAgainWhileItStaysTheSame()
      throws IOException {
    Path cert = dir.resolve("server.pem");
    rewrite(cert, "one", 0);
    watch(cert);

    clock.forward(EVERY);
    assertThat(reloads).as("nothing changed yet").hasValue(0);

    rewrite(cert, "two", 10);
    clock.forward(EVERY.minusMillis(1));
    assertThat(reloads).hasValue(0);
    clock.forward(Duration.ofMillis(1));
    assertThat(reloads).hasValue(1);

    clock.forward(EVERY.multipliedBy(3));
    assertThat(reloads).hasValue(1);
  }

  @Test
  void aReloadThatFailsKeepsTheWatchGoingForTheNextChange() throws IOException {
    Path cert = dir.resolve("server.pem");
    Path key = dir.resolve("server.key");
    rewrite(cert, "new cert", 0);
    rewrite(key, "old key", 0);
    watch(cert, key);

    reloadFails = true;
    rewrite(cert, "newer cert", 10);
    clock.forward(EVERY);
    assertThat(reloads).hasValue(1);

    reloadFails = false;
    rewrite(key, "new key", 20);
    clock.forward(EVERY);
    assertThat(reloads).hasValue(2);
    assertThat(clock.pendingDelays()).containsExactly(EVERY);
  }

  @Test
  void stoppedWatchLeavesNothingScheduled() throws IOException {
    Path cert = dir.resolve("server.pem");
    rewrite(cert, "one", 0);
    TlsWatch w = watch(cert);

    w.stop();
    rewrite(cert, "two", 10);
    clock.forward(EVERY);

    assertThat(clock.pendingDelays()).isEmpty();
    assertThat(reloads).hasValue(0);
  }
}
