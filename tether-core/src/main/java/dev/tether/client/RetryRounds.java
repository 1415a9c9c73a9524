package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

/**
 * The rounds over a proxy's endpoints, one piece for a call's first connection and for its retries,
 * so both walk the same endpoints in the same order and wait the same intervals: what a round tries
 * (re-selected each round: names re-resolved, a newly announced cluster view in force), how many
 * rounds there are (the retry intervals, or the reroute retries under a cluster view), and when the
 * next one starts. How often one endpoint is dialled is not a round's business: each key's
 * supervisor paces its own dials.
 */
final class RetryRounds {
  private final List<Duration> retryIntervals;
  private final TopologyViews topologies;
  private final EndpointSelector selector;
  private final ClientRuntime runtime;

  RetryRounds(
      List<Duration> retryIntervals,
      TopologyViews topologies,
      EndpointSelector selector,
      ClientRuntime runtime) {
    this.retryIntervals = retryIntervals;
    this.topologies = topologies;
    this.selector = selector;
    this.runtime = runtime;
  }

  /** What a round tries now, in selection order; throws as selection does when nothing is left. */
  List<Candidate> candidates(ProxySettings settings) {
    return selector.select(effective(settings));
  }

  /**
   * The settings a round selects from: once a server announced a cluster view, it replaces the
   * proxy's endpoints, primary first, the alternates after, in that order (the client-reroute
   * behaviour).
   */
  ProxySettings effective(ProxySettings settings) {
    List<Endpoint> order = topologies.failoverOrder(settings.fixedEndpoints());
    if (order == null) {
      return settings;
    }
    return settings.with(c -> c.endpoints(order).selection(EndpointSelection.ORDERED));
  }

  /**
   * The wait before the round that follows {@code roundsDone} rounds after the first, or null when
   * no round is left: {@code tether.retry.intervals}, or under a cluster view {@code
   * maxRerouteRetries} rounds {@code rerouteRetryInterval} apart.
   */
  Duration waitBeforeNext(ProxySettings settings, int roundsDone) {
    List<Duration> waits =
        topologies.failoverOrder(settings.fixedEndpoints()) == null
            ? retryIntervals
            : Collections.nCopies(settings.maxRerouteRetries(), settings.rerouteRetryInterval());
    return roundsDone < waits.size() ? waits.get(roundsDone) : null;
  }

  /**
   * Starts a round after {@code wait}: at once on this thread when zero, else on the control
   * executor.
   */
  void start(Duration wait, Runnable round) {
    if (wait.isZero()) {
      round.run();
    } else {
      runtime.scheduleOnControl(round, wait);
    }
  }
}
