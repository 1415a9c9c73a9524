package dev.tether.cli.kv;

import dev.tether.Idempotent;

/**
 * The demo key-value service, as served by {@code tether serve} and {@code tether demo}. Every
 * result names the server that produced it, so a client balancing over several servers can see who
 * answered.
 *
 * <p>{@code put} and {@code get} are idempotent (running either twice leaves the same state), so
 * Tether may retry them after a lost connection; {@code increment} is not, so Tether never retries
 * it once sent and reports {@code ConnectionLostException(mayHaveExecuted=true)} instead.
 */
public interface KeyValue {

  /** Sets {@code key} to {@code value}; returns the entry as stored. */
  @Idempotent
  Entry put(String key, String value);

  /** The entry for {@code key}; its value is null when the key was never put. */
  @Idempotent
  Entry get(String key);

  /** Adds one to {@code counter} (absent counters start at 0) and returns the new value. */
  Count increment(String counter);

  /** The name of the server answering. */
  @Idempotent
  String whoami();

  /**
   * A key and its value as one server saw it.
   *
   * @param value null when the key has no value
   * @param server the name of the server that answered
   */
  record Entry(String key, String value, String server) {}

  /**
   * A counter's value right after one increment.
   *
   * @param server the name of the server that executed the increment
   */
  record Count(String counter, long value, String server) {}
}
