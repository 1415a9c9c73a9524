package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

/**
 * How many rounds over a proxy's endpoints a call gets and what each round tries (seed 000's
 * retry intervals; seed 002's reroute retries once a server announced a cluster view). One policy
 * for a call's first connection and for its retries, so both walk the same endpoints in the same
 * order and wait the same intervals.
 */
final class RetryRounds {
  private final List<Duration> retryIntervals;
  private final TopologyViews topologies;

  RetryRounds(List<Duration> retryIntervals, TopologyViews topologies) {
    this.retryIntervals = retryIntervals;
    this.topologies = topologies;
  }

  /**
   * The settings a round selects from: once a server announced a cluster view, it replaces the
   * proxy's endpoints, primary first, the alternates after, in that order (seed 002).
   */
  ProxySettings effective(ProxySettings settings) {
    List<Endpoint> order = topologies.failoverOrder(settings.fixedEndpoints());
    if (order == null) {
      return settings;
    }
    return settings.with(c -> c.endpoints(order).selection(EndpointSelection.ORDERED));
  }

  /**
   * The waits before each round after the first: {@code tether.retry.intervals}, or under a
   * cluster view {@code maxRerouteRetries} rounds {@code rerouteRetryInterval} apart.
   */
  List<Duration> waits(ProxySettings settings) {
    if (topologies.failoverOrder(settings.fixedEndpoints()) == null) {
      return retryIntervals;
    }
    return Collections.nCopies(settings.maxRerouteRetries(), settings.rerouteRetryInterval());
  }
}
