package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.client.EjectionPolicy;
import dev.tether.client.ScriptedSupervisors;
import dev.tether.observe.TetherEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Failure accrual on the fake clock: 3 faults in a row eject a node for 10 s (doubling on each
 * repeat), then it is readmitted on probation and its next call decides; never more than half of
 * the group is out at once. The detector decides; each node's move emits its own event.
 */
class OutlierDetectorTest {
  private final FakeNodeHost host = new FakeNodeHost();
  private final List<String> changes = new ArrayList<>();
  private final OutlierDetector detector = new OutlierDetector(host);
  private final List<Node> nodes = group(host, detector, changes, 4);

  /** {@code size} nodes on ports 7001, 7002, ..., each move recorded as "7001 EJECTED". */
  private static List<Node> group(
      FakeNodeHost host, OutlierDetector detector, List<String> changes, int size) {
    List<Node> out = new ArrayList<>();
    host.control.execute(
        () -> {
          for (int i = 1; i <= size; i++) {
            var candidate = ScriptedSupervisors.candidate(7000 + i);
            Node n =
                new Node(
                    host,
                    candidate,
                    host.supervisor(candidate, ""),
                    moved -> changes.add(moved.endpoint().port() + " " + moved.health()));
            detector.add(n);
            out.add(n);
          }
        });
    return out;
  }

  private void finish(Node n, boolean nodeFault, int times) {
    for (int i = 0; i < times; i++) {
      detector.onCallFinished(n, nodeFault, health(n) == NodeHealth.PROBING, host.clock.nanoTime());
    }
  }

  private <T> T onControl(Supplier<T> read) {
    CompletableFuture<T> value = new CompletableFuture<>();
    host.control.execute(() -> value.complete(read.get()));
    return value.join();
  }

  private NodeHealth health(Node n) {
    return onControl(n::health);
  }

  private TetherEvent awaitEvent(TetherEvent.Kind kind, int port) {
    return await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                host.events.stream()
                    .filter(e -> e.kind() == kind && e.endpoint().endsWith("-p " + port))
                    .findFirst(),
            found -> found.isPresent())
        .orElseThrow();
  }

  @Test
  void ejectsANodeAfterTheThresholdOfFaultsInARow() {
    Node sick = nodes.get(0);

    finish(sick, true, 2);
    assertThat(health(sick)).isEqualTo(NodeHealth.UNKNOWN);

    finish(sick, true, 1);
    assertThat(health(sick)).isEqualTo(NodeHealth.EJECTED);
    assertThat(changes).containsExactly("7001 EJECTED");
  }

  @Test
  void nodeEjectionEmitsItsOwnEventWithTheFiguresThatDecided() {
    Node sick = nodes.get(0);

    finish(sick, true, 3);

    assertThat(awaitEvent(TetherEvent.Kind.NODE_EJECTED, 7001).detail())
        .isEqualTo(
            "ejected for 10000 ms: 3 failed call(s) in a row (ejection 1 in a row; 1 of 4 nodes"
                + " out)");
    assertThat(host.events).noneMatch(e -> e.kind() == TetherEvent.Kind.NODE_DEAD);
  }

  @Test
  void aSuccessEndsTheStreakOfFaults() {
    Node flaky = nodes.get(0);

    finish(flaky, true, 2);
    finish(flaky, false, 1);
    finish(flaky, true, 2);

    assertThat(health(flaky)).isEqualTo(NodeHealth.UNKNOWN);
    assertThat(changes).isEmpty();
  }

  @Test
  void probesTheNodeOnceItsEjectionTimeHasPassedOnTheClock() {
    Node sick = nodes.get(0);
    finish(sick, true, 3);

    host.clock.forward(Duration.ofSeconds(10).minusMillis(1));
    assertThat(health(sick)).isEqualTo(NodeHealth.EJECTED);

    host.clock.forward(Duration.ofMillis(1));
    assertThat(health(sick)).isEqualTo(NodeHealth.PROBING);
    assertThat(changes).containsExactly("7001 EJECTED", "7001 PROBING");
  }

  @Test
  void readmittedNodeEmitsNodeReadmitted() {
    Node sick = nodes.get(0);
    finish(sick, true, 3);

    host.clock.forward(Duration.ofSeconds(10));

    assertThat(awaitEvent(TetherEvent.Kind.NODE_READMITTED, 7001).detail())
        .isEqualTo("ejection of 10000 ms over: on probation, its next call decides");
  }

  @Test
  void aSuccessWhileProbingReadmitsTheNodeForGoodAndForgetsItsEjections() {
    Node sick = nodes.get(0);
    finish(sick, true, 3);
    host.clock.forward(Duration.ofSeconds(10));

    finish(sick, false, 1);
    assertThat(health(sick)).isEqualTo(NodeHealth.ALIVE);
    assertThat(awaitEvent(TetherEvent.Kind.NODE_ALIVE, 7001).detail())
        .isEqualTo("probe call after ejection succeeded; 1 ejection(s) in a row forgotten");
    assertThat(onControl(() -> detector.isOnProbation(sick))).isFalse();

    finish(sick, true, 3);
    assertThat(host.clock.pendingDelays()).containsExactly(Duration.ofSeconds(10));
  }

  @Test
  void aFaultWhileProbingEjectsTheNodeAgainForTwiceAsLong() {
    Node sick = nodes.get(0);
    finish(sick, true, 3);
    host.clock.forward(Duration.ofSeconds(10));

    finish(sick, true, 1);

    assertThat(health(sick)).isEqualTo(NodeHealth.EJECTED);
    assertThat(host.clock.pendingDelays()).containsExactly(Duration.ofSeconds(20));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                host.events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.detail()
                                    .equals(
                                        "ejected for 20000 ms: its probe call after the ejection"
                                            + " failed (ejection 2 in a row; 1 of 4 nodes out)")));
  }

  @Test
  void neverEjectsMoreThanTheAllowedShareOfTheGroup() {
    for (Node n : nodes) {
      finish(n, true, 3);
    }

    assertThat(nodes)
        .extracting(this::health)
        .containsExactly(
            NodeHealth.EJECTED, NodeHealth.EJECTED, NodeHealth.UNKNOWN, NodeHealth.UNKNOWN);
  }

  @Test
  void aNodeLeavingTheGroupFreesItsShareAndItsTimer() {
    finish(nodes.get(0), true, 3);
    host.control.execute(() -> detector.remove(nodes.get(0)));

    // Three nodes left, none ejected: one of them may go.
    finish(nodes.get(2), true, 3);

    assertThat(health(nodes.get(2))).isEqualTo(NodeHealth.EJECTED);
    assertThat(host.clock.pendingDelays()).hasSize(1);
  }

  @Test
  void deadNodeCannotBeEjectedItsSupervisorAlreadyTookItOut() {
    Node dead = nodes.get(0);
    host.control.execute(() -> dead.moveTo(NodeHealth.DEAD, "connection refused", null));

    finish(dead, true, 3);

    assertThat(health(dead)).isEqualTo(NodeHealth.DEAD);
    assertThat(changes).containsExactly("7001 DEAD");
    assertThat(host.clock.pendingDelays()).isEmpty();
  }

  @Test
  void tooLowASuccessRateEjectsWithoutAStreakAndSaysWhichRate() {
    FakeNodeHost strict =
        new FakeNodeHost(
            new EjectionPolicy(100, 0.5, 10, Duration.ofSeconds(10), Duration.ofSeconds(40), 0.5));
    OutlierDetector rated = new OutlierDetector(strict);
    List<String> seen = new ArrayList<>();
    List<Node> pair = group(strict, rated, seen, 2);
    Node flaky = pair.get(0);

    for (int i = 0; i < 4; i++) {
      rated.onCallFinished(flaky, false, false, strict.clock.nanoTime());
      rated.onCallFinished(flaky, true, false, strict.clock.nanoTime());
    }
    assertThat(seen).isEmpty();
    rated.onCallFinished(flaky, true, false, strict.clock.nanoTime());
    rated.onCallFinished(flaky, true, false, strict.clock.nanoTime());

    assertThat(seen).containsExactly("7001 EJECTED");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                strict.events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.detail()
                                    .startsWith(
                                        "ejected for 10000 ms: only 4 of its last 10 calls"
                                            + " succeeded")));
  }
}
