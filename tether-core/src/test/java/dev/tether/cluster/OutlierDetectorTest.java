package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.client.ScriptedSupervisors;
import dev.tether.observe.TetherEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Failure accrual on the fake clock: 3 faults in a row eject a node for 10 s (doubling on each
 * repeat), then its next call decides; never more than half of the group is out at once.
 */
class OutlierDetectorTest {
  private final FakeNodeHost host = new FakeNodeHost();
  private final List<String> changes = new ArrayList<>();
  private final OutlierDetector detector =
      new OutlierDetector(
          host,
          (n, previous, next) -> {
            changes.add(n.endpoint().port() + " " + next);
            n.becomes(
                next == OutlierDetector.Standing.EJECTED ? Node.Health.EJECTED : Node.Health.ALIVE);
          });
  private final List<Node> nodes = group(4);

  private List<Node> group(int size) {
    List<Node> out = new ArrayList<>();
    host.control.execute(
        () -> {
          for (int i = 1; i <= size; i++) {
            var candidate = ScriptedSupervisors.candidate(7000 + i);
            Node n = new Node(candidate, host.supervisor(candidate, ""));
            detector.add(n);
            out.add(n);
          }
        });
    return out;
  }

  private void finish(Node n, boolean nodeFault, int times) {
    for (int i = 0; i < times; i++) {
      detector.onCallFinished(
          n, nodeFault, standing(n) == OutlierDetector.Standing.PROBING, host.clock.nanoTime());
    }
  }

  private OutlierDetector.Standing standing(Node n) {
    CompletableFuture<OutlierDetector.Standing> s = new CompletableFuture<>();
    host.control.execute(() -> s.complete(detector.standing(n)));
    return s.join();
  }

  @Test
  void ejectsANodeAfterTheThresholdOfFaultsInARow() {
    Node sick = nodes.get(0);

    finish(sick, true, 2);
    assertThat(standing(sick)).isEqualTo(OutlierDetector.Standing.IN_ROTATION);

    finish(sick, true, 1);
    assertThat(standing(sick)).isEqualTo(OutlierDetector.Standing.EJECTED);
    assertThat(changes).containsExactly("7001 EJECTED");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                host.events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_DEAD
                                && e.detail()
                                    .startsWith(
                                        "ejected for 10000 ms: 3 failed call(s) in a row")));
  }

  @Test
  void aSuccessEndsTheStreakOfFaults() {
    Node flaky = nodes.get(0);

    finish(flaky, true, 2);
    finish(flaky, false, 1);
    finish(flaky, true, 2);

    assertThat(standing(flaky)).isEqualTo(OutlierDetector.Standing.IN_ROTATION);
  }

  @Test
  void probesTheNodeOnceItsEjectionTimeHasPassedOnTheClock() {
    Node sick = nodes.get(0);
    finish(sick, true, 3);

    host.clock.forward(Duration.ofSeconds(10).minusMillis(1));
    assertThat(standing(sick)).isEqualTo(OutlierDetector.Standing.EJECTED);

    host.clock.forward(Duration.ofMillis(1));
    assertThat(standing(sick)).isEqualTo(OutlierDetector.Standing.PROBING);
    assertThat(changes).containsExactly("7001 EJECTED", "7001 PROBING");
  }

  @Test
  void aSuccessWhileProbingReadmitsTheNodeAndForgetsItsEjections() {
    Node sick = nodes.get(0);
    finish(sick, true, 3);
    host.clock.forward(Duration.ofSeconds(10));

    finish(sick, false, 1);
    assertThat(standing(sick)).isEqualTo(OutlierDetector.Standing.IN_ROTATION);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                host.events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_ALIVE
                                && e.detail().contains("probe call after ejection succeeded")));

    finish(sick, true, 3);
    assertThat(host.clock.pendingDelays()).containsExactly(Duration.ofSeconds(10));
  }

  @Test
  void aFaultWhileProbingEjectsTheNodeAgainForTwiceAsLong() {
    Node sick = nodes.get(0);
    finish(sick, true, 3);
    host.clock.forward(Duration.ofSeconds(10));

    finish(sick, true, 1);

    assertThat(standing(sick)).isEqualTo(OutlierDetector.Standing.EJECTED);
    assertThat(host.clock.pendingDelays()).containsExactly(Duration.ofSeconds(20));
  }

  @Test
  void neverEjectsMoreThanTheAllowedShareOfTheGroup() {
    for (Node n : nodes) {
      finish(n, true, 3);
    }

    assertThat(nodes)
        .extracting(this::standing)
        .containsExactly(
            OutlierDetector.Standing.EJECTED, OutlierDetector.Standing.EJECTED,
            OutlierDetector.Standing.IN_ROTATION, OutlierDetector.Standing.IN_ROTATION);
  }

  @Test
  void aNodeLeavingTheGroupFreesItsShareAndItsTimer() {
    finish(nodes.get(0), true, 3);
    host.control.execute(() -> detector.remove(nodes.get(0)));

    // Three nodes left, none ejected: one of them may go.
    finish(nodes.get(2), true, 3);

    assertThat(standing(nodes.get(2))).isEqualTo(OutlierDetector.Standing.EJECTED);
    assertThat(host.clock.pendingDelays()).hasSize(1);
  }

  @Test
  void aDeadNodeIsNotEjectedItsSupervisorAlreadyTookItOut() {
    Node dead = nodes.get(0);
    host.control.execute(() -> dead.becomes(Node.Health.DEAD));

    finish(dead, true, 3);

    assertThat(standing(dead)).isEqualTo(OutlierDetector.Standing.IN_ROTATION);
  }

  @Test
  void tooLowASuccessRateEjectsWithoutAStreak() {
    FakeNodeHost strict =
        new FakeNodeHost(
            new dev.tether.client.EjectionPolicy(
                100, 0.5, 10, Duration.ofSeconds(10), Duration.ofSeconds(40), 0.5));
    List<String> seen = new ArrayList<>();
    OutlierDetector rated =
        new OutlierDetector(
            strict, (n, previous, next) -> seen.add(n.endpoint().port() + " " + next));
    List<Node> pair = new ArrayList<>();
    strict.control.execute(
        () -> {
          for (int port : new int[] {7001, 7002}) {
            var candidate = ScriptedSupervisors.candidate(port);
            Node n = new Node(candidate, strict.supervisor(candidate, ""));
            rated.add(n);
            pair.add(n);
          }
        });
    Node flaky = pair.get(0);

    for (int i = 0; i < 4; i++) {
      rated.onCallFinished(flaky, false, false, strict.clock.nanoTime());
      rated.onCallFinished(flaky, true, false, strict.clock.nanoTime());
    }
    assertThat(seen).isEmpty();
    rated.onCallFinished(flaky, true, false, strict.clock.nanoTime());
    rated.onCallFinished(flaky, true, false, strict.clock.nanoTime());

    assertThat(seen).containsExactly("7001 EJECTED");
  }
}
