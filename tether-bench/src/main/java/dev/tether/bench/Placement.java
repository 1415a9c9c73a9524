package dev.tether.bench;

/** Where a run's server lives relative to its client. */
public enum Placement {
  /** The server in a JVM of its own, started by the benchmark: as users run it. */
  TWO_PROCESS("two processes"),
  /** Client and server in this JVM, sharing its heap, JIT and CPU accounting. */
  ONE_JVM("one JVM");

  private final String label;

  Placement(String label) {
    this.label = label;
  }

  /** How the results table names it. */
  public String label() {
    return label;
  }
}
