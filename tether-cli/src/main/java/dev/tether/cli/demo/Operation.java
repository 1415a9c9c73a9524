package dev.tether.cli.demo;

/** The calls the demo's callers make, in the order the summary lists them. */
enum Operation {
  /** {@code kv.put}: idempotent, so Tether may retry it after a lost connection. */
  PUT("put", true),
  /** {@code kv.get}: idempotent. */
  GET("get", true),
  /** {@code kv.increment}: not idempotent, so never retried once sent. */
  INCREMENT("increment", false);

  final String label;
  final boolean idempotent;

  Operation(String label, boolean idempotent) {
    this.label = label;
    this.idempotent = idempotent;
  }
}
