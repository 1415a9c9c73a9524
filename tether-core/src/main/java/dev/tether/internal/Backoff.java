package dev.tether.internal;

import java.time.Duration;
import java.util.Random;

/**
 * How long to wait before each reconnection attempt of one failure streak: the delay starts at
 * {@code initial}, grows by {@code multiplier} up to {@code max}, and each value is spread by
 * {@code ±jitter} so that many clients do not retry in lockstep. A policy is immutable; call {@link
 * #newStreak()} for the mutable sequence of one streak.
 */
public final class Backoff {
  private final Duration initial;
  private final double multiplier;
  private final Duration max;
  private final double jitter;

  public Backoff(Duration initial, double multiplier, Duration max, double jitter) {
    if (initial.isNegative()
        || max.compareTo(initial) < 0
        || multiplier < 1
        || jitter < 0
        || jitter >= 1) {
      throw new IllegalArgumentException(
          "backoff needs 0 <= initial <= max, multiplier >= 1 and 0 <= jitter < 1; got "
              + initial
              + ", "
              + multiplier
              + ", "
              + max
              + ", "
              + jitter);
    }
    this.initial = initial;
    this.multiplier = multiplier;
    this.max = max;
    this.jitter = jitter;
  }

  /** Tether's default: 100 ms, doubling, at most 30 s, ±20%. */
  public static Backoff standard() {
    return new Backoff(Duration.ofMillis(100), 2.0, Duration.ofSeconds(30), 0.2);
  }

  /** SCF's reconnect task: every {@code period}, no growth, no jitter. */
  public static Backoff fixed(Duration period) {
    return new Backoff(period, 1.0, period, 0.0);
  }

  /** RethinkDB's supervisor: 30 s doubling to 15 min, no jitter. */
  public static Backoff exponential() {
    return exponential(Duration.ofSeconds(30), Duration.ofMinutes(15));
  }

  public static Backoff exponential(Duration initial, Duration max) {
    return new Backoff(initial, 2.0, max, 0.0);
  }

  public Duration initial() {
    return initial;
  }

  public double multiplier() {
    return multiplier;
  }

  public Duration max() {
    return max;
  }

  public double jitter() {
    return jitter;
  }

  /** A fresh failure streak drawing its jitter from {@code random}. */
  public Streak newStreak(Random random) {
    return new Streak(random);
  }

  /** The delays of one failure streak; not thread-safe, one owner. */
  public final class Streak {
    private final Random random;
    private double nextNanos = initial.toNanos();

    private Streak(Random random) {
      this.random = random;
    }

    /** The delay before the next attempt; each call moves the streak on. */
    public long nextDelayNanos() {
      double base = nextNanos;
      nextNanos = Math.min(nextNanos * multiplier, max.toNanos());
      if (jitter == 0) {
        return (long) base;
      }
      double spread = base * jitter * (2 * random.nextDouble() - 1);
      return (long) Math.max(0, base + spread);
    }
  }

  @Override
  public String toString() {
    return "Backoff["
        + initial.toMillis()
        + " ms x"
        + multiplier
        + " up to "
        + max.toMillis()
        + " ms, jitter "
        + jitter
        + "]";
  }
}
