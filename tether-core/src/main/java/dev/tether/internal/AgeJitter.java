package dev.tether.internal;

import java.util.Random;

/**
 * The spread of maximum connection ages, on the server and the client alike: each connection lives
 * the setting moved by up to 10% either way, so that connections opened together (a restart, a
 * burst of new clients) do not all move at the same moment.
 */
public final class AgeJitter {
  /** How far an age may stray from the setting, either way. */
  public static final double SPREAD = 0.10;

  private AgeJitter() {}

  /** One connection's age, drawn from {@code random}: in [0.9, 1.1] times {@code nanos}. */
  public static long draw(long nanos, Random random) {
    return at(nanos, random.nextDouble());
  }

  /** {@code nanos} moved across the band by {@code unit} in [0, 1): 0 is -10%, 0.5 the setting. */
  public static long at(long nanos, double unit) {
    return (long) (nanos * (1 - SPREAD + 2 * SPREAD * unit));
  }
}
