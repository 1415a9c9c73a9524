package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

/**
 * What the rounds over a proxy's endpoints are, for a call's first connection and its retries
 * alike, which one {@link EndpointWalk} per call runs: what a round tries (re-selected each round:
 * names re-resolved, a newly announced cluster view in force), how many rounds there are (the retry
 * intervals, or the reroute retries under a cluster view), and how long each waits for its turn.
 */
final class RetryRounds {
  private final List<Duration> retryIntervals;
  private final TopologyViews topologies;
  private final EndpointSelector selector;

  /** Runs a round on the control executor after its wait (the runtime's timer). */
  private final RoundTimer later;

  RetryRounds(
      List<Duration> retryIntervals,
      TopologyViews topologies,
      EndpointSelector selector,
      RoundTimer later) {
    this.retryIntervals = retryIntervals;
    this.topologies = topologies;
    this.selector = selector;
    this.later = later;
  }

  /** What a round tries now, in selection order; throws as selection does when nothing is left. */
  List<Candidate> candidates(ProxySettings settings) {
    return selector.select(effective(settings));
  }

  /** The proxy's configured servers in selection order, whatever cluster view is in force. */
  List<Candidate> configured(ProxySettings settings) {
    return selector.select(settings);
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
      later.start(round, wait);
    }
  }

  /**
   * A round whose wait would pass the call's deadline: it does not run (the deadline ends the call
   * first), unless the runtime closes before then.
   */
  void holdForClose(Duration untilDeadline, Runnable round) {
    later.holdForClose(round, untilDeadline);
  }
}
