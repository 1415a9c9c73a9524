package dev.tether.bench;

/**
 * One cell of the benchmark matrix: a system, a payload size and a number of outstanding calls.
 *
 * @param system the system and setting to run
 * @param payloadBytes the size of each request (and so of each echoed response)
 * @param concurrency how many calls are outstanding at once over the one connection
 * @param placement where the server runs
 */
public record Scenario(SystemSpec system, int payloadBytes, int concurrency, Placement placement) {

  /** A scenario whose server shares this JVM. */
  public Scenario(SystemSpec system, int payloadBytes, int concurrency) {
    this(system, payloadBytes, concurrency, Placement.ONE_JVM);
  }

  public Scenario {
    if (payloadBytes < 0) {
      throw new IllegalArgumentException("payloadBytes < 0: " + payloadBytes);
    }
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency < 1: " + concurrency);
    }
  }

  @Override
  public String toString() {
    return system.name()
        + ", "
        + payloadBytes
        + " B, "
        + concurrency
        + " outstanding, "
        + placement.label();
  }
}
