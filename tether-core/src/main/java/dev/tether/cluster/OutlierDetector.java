package dev.tether.cluster;

import dev.tether.client.AnswerBlame;
import dev.tether.client.ConnectionSupervisor;
import dev.tether.client.EjectionPolicy;
import dev.tether.client.NodeHost;
import dev.tether.spi.Scheduler;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Failure accrual for the nodes of one group, as Finagle's failure accrual and Envoy's outlier
 * detection do: a node whose connection is up but whose calls fail (a streak past the policy's
 * threshold, too low a success rate, or a share of failed answers among its last calls that stands
 * out from its peers' among theirs, as gRPC's outlier detection compares) is ejected for a while,
 * growing with each repeat; then it takes calls again on probation and the next one decides (a
 * success readmits it for good, a fault ejects it again). Never more than the policy's share of the
 * group is ejected at once.
 *
 * <p>The detector decides and the node moves: ejection, probation and readmission are moves of the
 * node's {@link NodeHealth} through {@link Node#moveTo}, which emits their events. What the
 * detector keeps of its own, on the control executor, is each node's ejections in a row and the
 * timer that ends the current one. Calls count their outcomes in the node's {@link FaultTally} on
 * their own loop and hop to the control executor only when an outcome may change a node's health,
 * so the hot path makes no hop per call.
 */
final class OutlierDetector {
  /** A node's ejections in a row and the end of the current one; control executor only. */
  private static final class Track {
    /** Ejections since the node was last readmitted by a good probe; above 0: on probation. */
    int ejections;

    /** Non-null only while the node is EJECTED: ends the ejection. */
    Scheduler.Cancellable ejectionEnd;

    /** How long the current or last ejection lasts. */
    Duration lasts = Duration.ZERO;
  }

  private final NodeHost host;
  private final EjectionPolicy policy;
  private final Map<Node, Track> tracks = new IdentityHashMap<>();

  OutlierDetector(NodeHost host) {
    this.host = host;
    this.policy = host.ejection();
  }

  // ---- membership (control executor) ----

  void add(Node node) {
    host.control().assertInExecutor();
    tracks.putIfAbsent(node, new Track());
  }

  void remove(Node node) {
    host.control().assertInExecutor();
    Track t = tracks.remove(node);
    if (t != null && t.ejectionEnd != null) {
      t.ejectionEnd.cancel();
    }
  }

  /**
   * Whether {@code node} was ejected and no good probe has readmitted it since: connected again, it
   * goes on probation rather than straight back to ALIVE. Control executor.
   */
  boolean isOnProbation(Node node) {
    host.control().assertInExecutor();
    Track t = tracks.get(node);
    return t != null && t.ejections > 0 && t.ejectionEnd == null;
  }

  // ---- outcomes (any thread) ----

  /** As {@link #onCallFinished(Node, AnswerBlame, boolean, long)}: a node fault or a good call. */
  void onCallFinished(Node node, boolean nodeFault, boolean probing, long nowNanos) {
    onCallFinished(node, nodeFault ? AnswerBlame.NODE_FAULT : AnswerBlame.NONE, probing, nowNanos);
  }

  /**
   * A call on {@code node} finished, its answer blaming the node as {@code blame} says. {@code
   * probing}: the group's published view has the node on probation, so this outcome decides it.
   */
  void onCallFinished(Node node, AnswerBlame blame, boolean probing, long nowNanos) {
    if (blame == AnswerBlame.NODE_FAULT) {
      int streak = node.tally.fault(nowNanos);
      if (probing) {
        host.control().execute(() -> onProbeFailed(node));
        return;
      }
      if (streak == policy.consecutiveFailures()) {
        host.control().execute(() -> onFault(node, streak + " failed call(s) in a row"));
        return;
      }
      long[] recent = node.tally.recent(nowNanos);
      if (policy.successRateTooLow(recent[0], recent[1])) {
        host.control()
            .execute(
                () ->
                    onFault(
                        node,
                        "only "
                            + recent[0]
                            + " of its last "
                            + (recent[0] + recent[1])
                            + " calls succeeded"));
        return;
      }
    } else {
      node.tally.answered(blame.failed(), nowNanos);
      if (probing) {
        host.control().execute(() -> onProbeAnswered(node, blame.failed()));
        return;
      }
    }
    if (blame.failed()) {
      long[] answers = node.tally.answers();
      // Only a node whose own share could stand out is compared, one comparison at a time.
      if (policy.mayStandOut(answers[0], answers[1]) && node.tally.startComparing()) {
        host.control().execute(() -> compareWithPeers(node));
      }
    }
  }

  // ---- the group's comparison (control executor) ----

  /**
   * Ejects {@code node} when its share of failed answers among its last calls stands out from its
   * peers' among theirs (the policy's gap), with the figures that decided.
   */
  void compareWithPeers(Node node) {
    host.control().assertInExecutor();
    node.tally.doneComparing();
    long[] mine = node.tally.answers();
    long[] peers = peersAnswers(node);
    if (policy.standsOut(mine[0], mine[1], peers[0], peers[1])) {
      onFault(
          node,
          "failed "
              + mine[1]
              + " of its last "
              + (mine[0] + mine[1])
              + " calls against "
              + peers[1]
              + " of its peers' last "
              + (peers[0] + peers[1]));
    }
  }

  /** The good and failed answers of every other node in rotation, each over its last calls. */
  private long[] peersAnswers(Node node) {
    long good = 0;
    long failed = 0;
    for (Node n : tracks.keySet()) {
      if (n != node && n.health().isSelectable()) {
        long[] a = n.tally.answers();
        good += a[0];
        failed += a[1];
      }
    }
    return new long[] {good, failed};
  }

  /**
   * A probe call was answered: a good answer readmits the node; a failed one fails the probe only
   * when it stands out, that is when its peers fail less often than the policy's gap would allow.
   * Peers with too few answers in rotation (all dead, say) say nothing against it, as they never do
   * in the comparison: the node is readmitted rather than leave the group with none at all.
   */
  private void onProbeAnswered(Node node, boolean failed) {
    long[] peers = peersAnswers(node);
    long calls = peers[0] + peers[1];
    if (!failed || !policy.peersSayEnough(calls)) {
      onProbeSucceeded(node);
      return;
    }
    double peersShare = (double) peers[1] / calls;
    if (1.0 - peersShare >= policy.outlierGap()) {
      onProbeFailed(node);
    } else {
      onProbeSucceeded(node); // its peers fail alike: the answer says nothing against it
    }
  }

  // ---- decisions (control executor) ----

  /**
   * {@code node} answers badly: eject it, unless its health forbids (dead, ejected already,
   * incompatible) or too many others are out.
   */
  void onFault(Node node, String why) {
    host.control().assertInExecutor();
    Track t = tracks.get(node);
    if (t == null || !node.health().canBecome(NodeHealth.EJECTED)) {
      return;
    }
    int ejected = ejectedNow();
    if (!policy.allowsAnother(ejected, tracks.size())) {
      node.tally.resetStreak();
      return; // never more than the allowed share: the rest of the group must not carry it all
    }
    Duration lasts = policy.duration(t.ejections + 1);
    String figures =
        "ejected for "
            + lasts.toMillis()
            + " ms: "
            + why
            + " (ejection "
            + (t.ejections + 1)
            + " in a row; "
            + (ejected + 1)
            + " of "
            + tracks.size()
            + " nodes out)";
    if (node.moveTo(NodeHealth.EJECTED, figures, null)) {
      t.ejections++;
      t.lasts = lasts;
      node.tally.clear();
      t.ejectionEnd = host.scheduleOnControl(() -> onEjectionOver(node), lasts.toNanos());
    }
  }

  /**
   * The ejection time is over: the node takes calls again on probation, and the next one decides;
   * if its supervisor is backing off meanwhile, it is dead until it reconnects, then on probation.
   */
  void onEjectionOver(Node node) {
    host.control().assertInExecutor();
    Track t = tracks.get(node);
    if (t == null || t.ejectionEnd == null || host.isClosing()) {
      return;
    }
    t.ejectionEnd = null;
    node.tally.resetStreak();
    String over = "ejection of " + t.lasts.toMillis() + " ms over";
    if (node.supervisor.state() == ConnectionSupervisor.State.TRANSIENT_FAILURE) {
      node.moveTo(NodeHealth.DEAD, over + ", but its connection is down", null);
    } else {
      node.moveTo(NodeHealth.PROBING, over + ": on probation, its next call decides", null);
    }
  }

  /**
   * A call succeeded while the node was on probation: it is back for good, its ejections forgotten.
   */
  void onProbeSucceeded(Node node) {
    host.control().assertInExecutor();
    Track t = tracks.get(node);
    if (t == null || node.health() != NodeHealth.PROBING) {
      return; // another call decided first
    }
    String why =
        "probe call after ejection succeeded; " + t.ejections + " ejection(s) in a row forgotten";
    t.ejections = 0;
    node.moveTo(NodeHealth.ALIVE, why, null);
  }

  /** A call failed while the node was on probation: it is ejected again, for longer. */
  void onProbeFailed(Node node) {
    host.control().assertInExecutor();
    if (node.health() == NodeHealth.PROBING) {
      onFault(node, "its probe call after the ejection failed");
    }
  }

  /** The group's nodes out now: few, and counted only when a node may be ejected. */
  private int ejectedNow() {
    int ejected = 0;
    for (Node n : tracks.keySet()) {
      if (n.health() == NodeHealth.EJECTED) {
        ejected++;
      }
    }
    return ejected;
  }
}
