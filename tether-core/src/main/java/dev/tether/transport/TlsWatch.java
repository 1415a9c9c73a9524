package dev.tether.transport;

import dev.tether.spi.Scheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the PEM files of a server or client and reloads TLS when one changes (its modification
 * time or size), so a renewed certificate or CA takes effect without a restart. It polls through
 * the runtime's scheduler rather than a file-system watch, so it works on every file system and a
 * fake clock drives it in tests; its state belongs to the serial executor it is given.
 */
public final class TlsWatch {
  private static final Logger log = LoggerFactory.getLogger(TlsWatch.class);

  /** What a file looked like at one check; a missing file has no time and size -1. */
  private record Stamp(Path file, Object modified, long size) {}

  private final List<Path> files;
  private final Runnable reload;
  private final Scheduler scheduler;
  private final Executor owner;
  private final long intervalNanos;

  /** The files at the last check; null until started. */
  private List<Stamp> seen;

  /** Non-null while a check is scheduled. */
  private Scheduler.Cancellable next;

  private boolean stopped;

  /**
   * @param reload builds and installs a new context, and logs the outcome; may throw, which keeps
   *     the old one
   * @param owner a serial executor: every check runs on it, one at a time
   */
  public TlsWatch(
      List<Path> files, Runnable reload, Scheduler scheduler, Executor owner, long intervalNanos) {
    this.files = List.copyOf(files);
    this.reload = reload;
    this.scheduler = scheduler;
    this.owner = owner;
    this.intervalNanos = intervalNanos;
  }

  public void start() {
    // Read on the caller's thread, before start returns: read later on the owner, a change made
    // right after start (a deploy rotating the files) could be taken for the starting state and
    // never reloaded.
    List<Stamp> starting = stamps();
    owner.execute(
        () -> {
          seen = starting;
          scheduleNext();
        });
  }

  public void stop() {
    owner.execute(
        () -> {
          stopped = true;
          if (next != null) {
            next.cancel();
            next = null;
          }
        });
  }

  private void scheduleNext() {
    next = scheduler.schedule(() -> owner.execute(this::check), intervalNanos);
  }

  /**
   * One look at the files: reloads when any changed since the last look. A reload that fails (a
   * certificate written before its key, say) keeps the old context and reports why itself (see
   * dev.tether.TlsReload); the next change, the second file of the pair, tries again.
   */
  private void check() {
    next = null;
    if (stopped) {
      return;
    }
    List<Stamp> now = stamps();
    if (!now.equals(seen)) {
      seen = now;
      log.debug("TLS files {} changed: reloading", files);
      try {
        reload.run();
      } catch (RuntimeException e) {
        log.debug("TLS reload after {} changed refused", files, e);
      }
    }
    scheduleNext();
  }

  private List<Stamp> stamps() {
    List<Stamp> out = new ArrayList<>(files.size());
    for (Path f : files) {
      try {
        out.add(new Stamp(f, Files.getLastModifiedTime(f), Files.size(f)));
      } catch (IOException missing) {
        out.add(new Stamp(f, null, -1));
      }
    }
    return out;
  }
}
