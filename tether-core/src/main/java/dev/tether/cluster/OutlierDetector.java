package dev.tether.cluster;

import dev.tether.client.EjectionPolicy;
import dev.tether.client.NodeHost;
import dev.tether.observe.TetherEvent;
import dev.tether.spi.Scheduler;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Failure accrual for the nodes of one group, as Finagle's failure accrual and Envoy's outlier
 * detection do: a node whose connection is up but whose calls fail (a streak past the policy's
 * threshold, or too low a success rate) is ejected for a while, growing with each repeat; then it
 * takes calls again and the next one decides (a success readmits it, a fault ejects it again).
 * Never more than the policy's share of the group is ejected at once.
 *
 * <p>Each node's standing belongs to the runtime's control executor: it changes only there, in
 * {@link #transitionTo}, which emits the event and tells the group. Calls count their outcomes in
 * the node's {@link FaultTally} on their own loop and hop to the control executor only when an
 * outcome may change a standing, so the hot path makes no hop per call.
 */
final class OutlierDetector {
  /** Where a node stands with the detector. */
  enum Standing {
    /** Takes calls; its faults are counted. */
    IN_ROTATION,
    /** Out of rotation until its ejection time ends. */
    EJECTED,
    /** Back in rotation after an ejection; its next call decides. */
    PROBING
  }

  /** The group, told of every change of a node's standing on the control executor. */
  @FunctionalInterface
  interface Listener {
    void onStandingChanged(Node node, Standing previous, Standing next);
  }

  /** A node's standing and its ejections in a row; control executor only. */
  private static final class Track {
    Standing standing = Standing.IN_ROTATION;
    int ejections;

    /** Non-null only while EJECTED: ends the ejection. */
    Scheduler.Cancellable ejectionEnd;
  }

  private final NodeHost host;
  private final EjectionPolicy policy;
  private final Listener group;
  private final Map<Node, Track> tracks = new IdentityHashMap<>();
  private int ejected;

  OutlierDetector(NodeHost host, Listener group) {
    this.host = host;
    this.policy = host.ejection();
    this.group = group;
  }

  // ---- membership (control executor) ----

  void add(Node node) {
    host.control().assertInExecutor();
    tracks.putIfAbsent(node, new Track());
  }

  void remove(Node node) {
    host.control().assertInExecutor();
    Track t = tracks.remove(node);
    if (t != null && t.standing == Standing.EJECTED) {
      ejected--;
      t.ejectionEnd.cancel();
    }
  }

  Standing standing(Node node) {
    host.control().assertInExecutor();
    Track t = tracks.get(node);
    return t == null ? Standing.IN_ROTATION : t.standing;
  }

  // ---- outcomes (any thread) ----

  /**
   * A call on {@code node} finished. {@code probing}: the group's published view has the node on
   * probation, so this outcome decides it.
   */
  void onCallFinished(Node node, boolean nodeFault, boolean probing, long nowNanos) {
    if (nodeFault) {
      int streak = node.tally.fault(nowNanos);
      if (streak == policy.consecutiveFailures() || probing) {
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
      }
    } else {
      node.tally.success(nowNanos);
      if (probing) {
        host.control().execute(() -> onProbeSucceeded(node));
      }
    }
  }

  // ---- decisions (control executor) ----

  /** {@code node} answers badly: eject it, unless it is out already or too many others are. */
  void onFault(Node node, String why) {
    host.control().assertInExecutor();
    Track t = tracks.get(node);
    if (t == null || t.standing == Standing.EJECTED || !node.isSelectable()) {
      return;
    }
    if (!policy.allowsAnother(ejected, tracks.size())) {
      node.tally.resetStreak();
      return; // never more than the allowed share: the rest of the group must not carry it all
    }
    t.ejections++;
    node.tally.clear();
    Duration lasts = policy.duration(t.ejections);
    t.ejectionEnd = host.scheduleOnControl(() -> onEjectionOver(node), lasts.toNanos());
    transitionTo(node, t, Standing.EJECTED, "ejected for " + lasts.toMillis() + " ms: " + why);
  }

  /** The ejection time is over: the node takes calls again, and the next one decides. */
  void onEjectionOver(Node node) {
    host.control().assertInExecutor();
    Track t = tracks.get(node);
    if (t == null || t.standing != Standing.EJECTED || host.isClosing()) {
      return;
    }
    t.ejectionEnd = null;
    node.tally.resetStreak();
    transitionTo(node, t, Standing.PROBING, null);
  }

  /**
   * A call succeeded while the node was on probation: it is back for good, its ejections forgotten.
   */
  void onProbeSucceeded(Node node) {
    host.control().assertInExecutor();
    Track t = tracks.get(node);
    if (t == null || t.standing != Standing.PROBING) {
      return;
    }
    t.ejections = 0;
    transitionTo(node, t, Standing.IN_ROTATION, "probe call after ejection succeeded");
  }

  /** Every change of a node's standing: counts the ejected, emits the event, tells the group. */
  private void transitionTo(Node node, Track t, Standing next, String why) {
    host.control().assertInExecutor();
    Standing previous = t.standing;
    if (previous == next) {
      return;
    }
    t.standing = next;
    if (next == Standing.EJECTED) {
      ejected++;
      host.events().emit(TetherEvent.Kind.NODE_DEAD, node.endpoint().toString(), why, null);
    } else if (previous == Standing.EJECTED) {
      ejected--;
    }
    if (next == Standing.IN_ROTATION && previous == Standing.PROBING) {
      host.events().emit(TetherEvent.Kind.NODE_ALIVE, node.endpoint().toString(), why, null);
    }
    group.onStandingChanged(node, previous, next);
  }
}
