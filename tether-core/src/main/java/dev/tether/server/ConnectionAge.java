package dev.tether.server;

import dev.tether.internal.AgeJitter;
import java.time.Duration;
import java.util.Random;

/**
 * The server's maximum connection age: how long a connection is served before it is told
 * GOAWAY(MAX_AGE), and how long it is still served after that (the grace). Each connection draws
 * its own age within ±10% of the setting, so that connections opened together do not all move at
 * the same moment. Shared by every connection of a server; the random source is the server's own.
 *
 * @param maxAgeNanos 0: connections never age
 * @param graceNanos 0: an aged connection is served until its client closes it
 */
public record ConnectionAge(long maxAgeNanos, long graceNanos, Random random) {
  public ConnectionAge {
    if (maxAgeNanos < 0 || graceNanos < 0) {
      throw new IllegalArgumentException("a max connection age and its grace must not be negative");
    }
  }

  /** From the settings; throws naming the key when one is negative. */
  public static ConnectionAge of(Duration maxAge, Duration grace, Random random) {
    if (maxAge.isNegative()) {
      throw new IllegalArgumentException(
          "tether.server.maxConnectionAge must not be negative, got " + maxAge);
    }
    if (grace.isNegative()) {
      throw new IllegalArgumentException(
          "tether.server.maxConnectionAgeGrace must not be negative, got " + grace);
    }
    return new ConnectionAge(maxAge.toNanos(), grace.toNanos(), random);
  }

  /** Connections never age. */
  public static ConnectionAge off() {
    return new ConnectionAge(0, 0, new Random(0));
  }

  boolean isOn() {
    return maxAgeNanos > 0;
  }

  /** One connection's age: the setting times a factor drawn uniformly from [0.9, 1.1). */
  long drawAgeNanos() {
    return AgeJitter.draw(maxAgeNanos, random);
  }
}
