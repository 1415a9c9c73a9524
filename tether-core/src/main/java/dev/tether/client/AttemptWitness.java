package dev.tether.client;

/**
 * Hears, on the control executor, which attempt of a key a call took part in: one a call asked for
 * (dialled or joined), or any one a call's later round redials or joins. Such a call may redial the
 * key in its next round if that attempt fails.
 */
@FunctionalInterface
interface AttemptWitness {
  void tookPart(long attempt);
}
