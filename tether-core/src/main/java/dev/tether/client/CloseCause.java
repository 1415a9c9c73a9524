package dev.tether.client;

import dev.tether.TetherException;

/**
 * Why one connection closes: the first failure seen (a protocol error, a failed write, a silent
 * peer, a refused opening), or that it was closed on purpose (drain, GOAWAY, idle, runtime close),
 * which means no background reconnect. Confined to the connection's event loop.
 */
final class CloseCause {
  /** The first failure; null while healthy or when closed on purpose alone. */
  private Throwable failure;

  private boolean onPurpose;

  /** What more can be said of a close on purpose; null when nothing. */
  private String purpose;

  /** Keeps {@code cause} unless an earlier failure already explains the close. */
  void failedWith(Throwable cause) {
    if (failure == null) {
      failure = cause;
    }
  }

  /** Replaces whatever was known with {@code cause}: it explains the close better. */
  void failedBecause(Throwable cause) {
    failure = cause;
  }

  void closedOnPurpose() {
    onPurpose = true;
  }

  /** A close on purpose, with what can be said of it. */
  void closedOnPurpose(String why) {
    onPurpose = true;
    purpose = why;
  }

  boolean isOnPurpose() {
    return onPurpose;
  }

  /** The failure, or null when none was seen. */
  Throwable failure() {
    return failure;
  }

  /** The failure, or when there is none, {@code otherwise}. */
  Throwable failureOr(String otherwise) {
    return failure != null ? failure : new TetherException(otherwise);
  }

  /** True when the close is fully explained by its purpose: no failure is reported with it. */
  boolean isQuiet() {
    return onPurpose && failure == null;
  }

  /** The words for a quiet close. */
  String purpose() {
    return purpose != null ? purpose : "closed on purpose";
  }

  /** A throwable in words: its message, or what it is when it has none. */
  static String describe(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }
}
