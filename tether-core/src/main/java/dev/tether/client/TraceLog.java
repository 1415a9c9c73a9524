package dev.tether.client;

import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code tether.trace.retry} and {@code tether.trace.connection} as one listener among others: the
 * events of the runtime, written to the {@code dev.tether.trace.*} loggers at INFO. Retry level 1
 * logs what made a call fail; level 2 every connect attempt and retry with its reason.
 */
final class TraceLog implements TetherListener {
  private static final Logger retryLog = LoggerFactory.getLogger("dev.tether.trace.retry");
  private static final Logger connectionLog =
      LoggerFactory.getLogger("dev.tether.trace.connection");

  private final int retryLevel;
  private final boolean connections;

  TraceLog(int retryLevel, boolean connections) {
    this.retryLevel = retryLevel;
    this.connections = connections;
  }

  @Override
  public void onEvent(TetherEvent e) {
    if (connections) {
      connectionLog.info("{} {}: {}", e.kind(), e.endpoint(), e.detail());
    }
    switch (e.kind()) {
      case RETRY_BUDGET_EXHAUSTED -> retry(1, e.detail());
      case CONNECT_FAILED -> retry(2, "connect to " + e.endpoint() + " failed: " + e.detail());
      case CONNECTED -> retry(2, "connected to " + e.endpoint());
      case RETRY, REROUTE -> retry(2, e.detail());
      default -> {}
    }
  }

  private void retry(int level, String line) {
    if (retryLevel >= level) {
      retryLog.info(line);
    }
  }

  @Override
  public String toString() {
    return "trace log";
  }
}
