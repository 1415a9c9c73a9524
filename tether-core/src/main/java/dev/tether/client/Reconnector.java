package dev.tether.client;

import dev.tether.internal.Backoff;
import dev.tether.spi.Scheduler;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-establishes broken connections in the background (SCF's reconnect task), one failure streak
 * per connection key, waiting per the reconnect backoff between attempts. A streak ends when a
 * usable connection for its key exists again, however it came to be, or when the runtime closes.
 */
final class Reconnector {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");

  private final ConnectionPool pool;
  private final Backoff policy;
  private final Scheduler scheduler;
  private final Random random;
  private final Map<ConnectionKey, Streak> streaks = new ConcurrentHashMap<>();
  private volatile boolean closed;

  Reconnector(ConnectionPool pool, Backoff policy, Scheduler scheduler, Random random) {
    this.pool = pool;
    this.policy = policy;
    this.scheduler = scheduler;
    this.random = random;
  }

  /** A connection for this candidate broke: start a streak unless one runs already. */
  void onBroken(Candidate candidate, ConnectionKey key) {
    if (closed) {
      return;
    }
    streaks.computeIfAbsent(key, k -> {
      Streak s = new Streak(candidate, k);
      s.scheduleNext();
      return s;
    });
  }

  /** How many keys are being reconnected now. */
  int activeStreaks() {
    return streaks.size();
  }

  void close() {
    closed = true;
    for (Streak s : streaks.values()) {
      s.cancel();
    }
    streaks.clear();
  }

  /** The attempts for one key. */
  private final class Streak {
    private final Candidate candidate;
    private final ConnectionKey key;
    private final Backoff.Streak delays = policy.newStreak(random);
    private volatile Scheduler.Cancellable next;

    Streak(Candidate candidate, ConnectionKey key) {
      this.candidate = candidate;
      this.key = key;
    }

    void scheduleNext() {
      long delay = delays.nextDelayNanos();
      next = scheduler.schedule(this::attempt, delay);
    }

    private void attempt() {
      if (closed) {
        return;
      }
      if (pool.existing(key) != null && pool.existing(key).state() == dev.tether.ConnectionState.ACTIVE) {
        streaks.remove(key, this);
        return;
      }
      pool.obtain(candidate, key.connectionId()).ready().whenComplete((c, failure) -> {
        if (failure == null) {
          log.debug("reconnected to {}", candidate.endpoint());
          streaks.remove(key, this);
        } else if (!closed) {
          log.debug("reconnect to {} failed: {}", candidate.endpoint(), failure.getMessage());
          scheduleNext();
        }
      });
    }

    void cancel() {
      Scheduler.Cancellable n = next;
      if (n != null) {
        n.cancel();
      }
    }
  }
}
