package dev.tether.admin;

import java.time.Duration;

/**
 * The admin port's bounds, so that the page can never hold more of the process's descriptors,
 * memory or time than they allow, whoever connects: at most {@code maxConnections} open at once
 * (more are answered 503 and closed), a connection with nothing read or written for {@code
 * idleTimeout} is closed (an event stream excepted), and a request whose head and body have not all
 * arrived within {@code headerDeadline} of its first byte is answered 408 and closed (a slowloris
 * client).
 */
record AdminLimits(int maxConnections, Duration idleTimeout, Duration headerDeadline) {
  /** Enough for a few pages (each an open stream and a handful of requests) and scrapers. */
  static final int DEFAULT_MAX_CONNECTIONS = 64;

  /** Long beside any request's round trip; event streams are exempt (they idle between updates). */
  static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);

  /** A request is a few hundred bytes: any client that is not stalling sends it in far less. */
  static final Duration DEFAULT_HEADER_DEADLINE = Duration.ofSeconds(10);

  static final AdminLimits DEFAULTS =
      new AdminLimits(DEFAULT_MAX_CONNECTIONS, DEFAULT_IDLE_TIMEOUT, DEFAULT_HEADER_DEADLINE);

  AdminLimits {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("at least one admin connection: " + maxConnections);
    }
    requirePositive(idleTimeout, "idle timeout");
    requirePositive(headerDeadline, "header deadline");
  }

  private static void requirePositive(Duration d, String what) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("the admin " + what + " must be positive: " + d);
    }
  }

  AdminLimits withMaxConnections(int n) {
    return new AdminLimits(n, idleTimeout, headerDeadline);
  }

  AdminLimits withIdleTimeout(Duration d) {
    return new AdminLimits(maxConnections, d, headerDeadline);
  }

  AdminLimits withHeaderDeadline(Duration d) {
    return new AdminLimits(maxConnections, idleTimeout, d);
  }
}
