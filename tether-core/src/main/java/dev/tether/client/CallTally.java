package dev.tether.client;

import dev.tether.protocol.Status;

/**
 * What one connection's status page counts: calls answered OK, calls that failed on it, and the
 * latest failure in words. Confined to the connection's event loop, as the pending calls are.
 */
final class CallTally {
  private long ok;
  private long failed;
  private String lastError;

  /** The server answered a call with {@code status}. */
  void onAnswered(Status status) {
    if (status == Status.OK) {
      ok++;
    } else {
      failed++;
      lastError = status.name();
    }
  }

  /** {@code count} calls waiting for their answer were lost with the connection. */
  void onLost(int count, String why) {
    if (count > 0) {
      failed += count;
      lastError = why;
    }
  }

  long ok() {
    return ok;
  }

  long failed() {
    return failed;
  }

  /** Why the latest call or the connection failed, or null. */
  String lastError() {
    return lastError;
  }
}
