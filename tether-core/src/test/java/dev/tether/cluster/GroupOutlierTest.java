package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.client.AnswerBlame;
import dev.tether.client.EjectionPolicy;
import dev.tether.client.ScriptedSupervisors;
import dev.tether.observe.TetherEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ejection relative to the group, on the fake clock: a node whose failed answers (the service's own
 * errors included) among its last 40 calls stand out from its peers' among theirs is ejected once
 * it had the policy's minimum of calls, with the figures in the event, after however long a healthy
 * history and at whatever call rate; a group whose nodes fail alike ejects none. The streak and
 * success-rate rules are switched off here, so only the comparison acts.
 */
class GroupOutlierTest {
  /** No streak, no success rate: 20 calls, a gap of one half, at most half the group out. */
  private final FakeNodeHost host =
      new FakeNodeHost(
          new EjectionPolicy(
              Integer.MAX_VALUE,
              0.0,
              20,
              Duration.ofSeconds(10),
              Duration.ofSeconds(40),
              0.5,
              0.5));

  private final OutlierDetector detector = new OutlierDetector(host);
  private final List<String> moves = new ArrayList<>();
  private final List<Node> nodes = new ArrayList<>();

  GroupOutlierTest() {
    host.control.execute(
        () -> {
          for (int i = 1; i <= 3; i++) {
            var candidate = ScriptedSupervisors.candidate(7000 + i);
            Node n =
                new Node(
                    host,
                    candidate,
                    host.supervisor(candidate, ""),
                    moved -> moves.add(moved.endpoint().port() + " " + moved.health()));
            detector.add(n);
            nodes.add(n);
          }
        });
  }

  private void answer(Node n, AnswerBlame blame) {
    detector.onCallFinished(n, blame, false, host.clock.nanoTime());
  }

  private NodeHealth health(Node n) {
    CompletableFuture<NodeHealth> h = new CompletableFuture<>();
    host.control.execute(() -> h.complete(n.health()));
    return h.join();
  }

  @Test
  void nodeWhoseServiceFailsEveryCallIsEjectedAtTheMinimumOfCallsWithTheFigures() {
    Node sick = nodes.get(0);
    for (int i = 0; i < 19; i++) {
      answer(nodes.get(1), AnswerBlame.NONE);
      answer(nodes.get(2), AnswerBlame.NONE);
      answer(sick, AnswerBlame.FAILED_ANSWER);
      host.clock.forward(Duration.ofMillis(10));
    }
    assertThat(moves).isEmpty();

    answer(sick, AnswerBlame.FAILED_ANSWER);

    assertThat(moves).containsExactly("7001 EJECTED");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                host.events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.detail()
                                    .startsWith(
                                        "ejected for 10000 ms: failed 20 of its last 20 calls"
                                            + " against 0 of its peers' last 38")));
  }

  /** Rounds of one call on every node, {@code gapMillis} apart on the clock, all answered well. */
  private void healthyRounds(int rounds, long gapMillis) {
    for (int i = 0; i < rounds; i++) {
      for (Node n : nodes) {
        answer(n, AnswerBlame.NONE);
      }
      host.clock.forward(Duration.ofMillis(gapMillis));
    }
  }

  /**
   * Rounds in which {@code sick} fails and its peers answer well, until it is out or 200 rounds
   * passed; returns how many of its calls failed.
   */
  private int failuresUntilEjected(Node sick, long gapMillis) {
    int failed = 0;
    while (failed < 200 && health(sick) != NodeHealth.EJECTED) {
      for (Node n : nodes) {
        if (n == sick) {
          answer(n, AnswerBlame.FAILED_ANSWER);
          failed++;
        } else {
          answer(n, AnswerBlame.NONE);
        }
      }
      host.clock.forward(Duration.ofMillis(gapMillis));
    }
    return failed;
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 10, 100})
  void nodeThatTurnsSickAfterAHealthyHistoryIsOutAfterHalfItsLastCallsFailedWhateverTheRate(
      long gapMillis) {
    Node sick = nodes.get(0);
    healthyRounds(400, gapMillis);

    assertThat(failuresUntilEjected(sick, gapMillis)).isEqualTo(20);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                host.events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.detail()
                                    .startsWith(
                                        "ejected for 10000 ms: failed 20 of its last 40 calls"
                                            + " against 0 of its peers' last 80")));
  }

  @Test
  void sickNodeWhosePeersFailSometimesIsOutOnceItsShareIsTheGapAboveTheirs() {
    Node sick = nodes.get(0);
    int failed = 0;
    for (int i = 0; i < 600 && health(sick) != NodeHealth.EJECTED; i++) {
      // One in ten fails on each peer throughout: 8 of their last 80, a share of one tenth.
      answer(nodes.get(1), i % 10 == 0 ? AnswerBlame.FAILED_ANSWER : AnswerBlame.NONE);
      answer(nodes.get(2), i % 10 == 5 ? AnswerBlame.FAILED_ANSWER : AnswerBlame.NONE);
      if (i < 400) {
        answer(sick, AnswerBlame.NONE);
      } else {
        answer(sick, AnswerBlame.FAILED_ANSWER);
        failed++;
      }
      host.clock.forward(Duration.ofMillis(2));
    }

    // 24 of 40 is six tenths, one half above the peers' tenth.
    assertThat(failed).isEqualTo(24);
  }

  @Test
  void groupThatTurnsToFailingAlikeAfterAHealthyHistoryKeepsEveryNode() {
    healthyRounds(400, 2);
    for (int i = 0; i < 400; i++) {
      for (Node n : nodes) {
        answer(n, AnswerBlame.FAILED_ANSWER);
      }
      host.clock.forward(Duration.ofMillis(2));
    }

    assertThat(moves).isEmpty();
  }

  @Test
  void ejectedNodeStartsItsCountAfreshAndIsNotComparedBeforeTheMinimumOfCalls() {
    Node sick = nodes.get(0);
    healthyRounds(100, 2);
    assertThat(failuresUntilEjected(sick, 2)).isEqualTo(20);
    host.clock.forward(Duration.ofSeconds(10));
    // The probe readmits it, its old answers forgotten.
    detector.onCallFinished(sick, AnswerBlame.NONE, true, host.clock.nanoTime());
    assertThat(health(sick)).isEqualTo(NodeHealth.ALIVE);

    // The probe's good answer and 18 failed ones: 19 answers, one short of the minimum.
    for (int i = 0; i < 18; i++) {
      answer(sick, AnswerBlame.FAILED_ANSWER);
    }
    assertThat(health(sick)).isEqualTo(NodeHealth.ALIVE);
    answer(sick, AnswerBlame.FAILED_ANSWER);
    assertThat(health(sick)).isEqualTo(NodeHealth.EJECTED);
  }

  @Test
  void nodeFaultsCountInTheComparisonToo() {
    Node sick = nodes.get(0);
    for (int i = 0; i < 20; i++) {
      answer(nodes.get(1), AnswerBlame.NONE);
      answer(nodes.get(2), i % 5 == 0 ? AnswerBlame.FAILED_ANSWER : AnswerBlame.NONE);
      answer(sick, i % 4 == 0 ? AnswerBlame.FAILED_ANSWER : AnswerBlame.NODE_FAULT);
    }

    assertThat(health(sick)).isEqualTo(NodeHealth.EJECTED);
  }

  @Test
  void groupWhoseNodesAllFailAlikeKeepsEveryNode() {
    for (int i = 0; i < 300; i++) {
      for (Node n : nodes) {
        answer(n, AnswerBlame.FAILED_ANSWER);
      }
      host.clock.forward(Duration.ofMillis(10));
    }
    for (int i = 0; i < 300; i++) {
      for (Node n : nodes) {
        // Six in ten fail everywhere, in a different order on each node.
        boolean fails = (i + nodes.indexOf(n) * 3) % 10 < 6;
        answer(n, fails ? AnswerBlame.FAILED_ANSWER : AnswerBlame.NONE);
      }
      host.clock.forward(Duration.ofMillis(10));
    }

    assertThat(moves).isEmpty();
  }

  @Test
  void nodeWithoutPeersToCompareWithIsNeverEjectedByComparison() {
    for (int i = 0; i < 100; i++) {
      answer(nodes.get(0), AnswerBlame.FAILED_ANSWER);
    }

    assertThat(moves).isEmpty();
  }

  @Test
  void failedAnswerOfAProbeFailsItOnlyWhenItsPeersAnswerWell() {
    Node sick = nodes.get(0);
    for (int i = 0; i < 20; i++) {
      answer(nodes.get(1), AnswerBlame.NONE);
      answer(sick, AnswerBlame.FAILED_ANSWER);
    }
    assertThat(health(sick)).isEqualTo(NodeHealth.EJECTED);
    host.clock.forward(Duration.ofSeconds(10));
    assertThat(health(sick)).isEqualTo(NodeHealth.PROBING);

    detector.onCallFinished(sick, AnswerBlame.FAILED_ANSWER, true, host.clock.nanoTime());

    assertThat(health(sick)).isEqualTo(NodeHealth.EJECTED);
  }

  @Test
  void failedProbeOfANodeWhosePeersAreAllDeadReadmitsItRatherThanLeaveTheGroupEmpty() {
    Node sick = nodes.get(0);
    for (int i = 0; i < 20; i++) {
      answer(nodes.get(1), AnswerBlame.NONE);
      answer(sick, AnswerBlame.FAILED_ANSWER);
    }
    assertThat(health(sick)).isEqualTo(NodeHealth.EJECTED);
    host.control.execute(
        () -> {
          nodes.get(1).moveTo(NodeHealth.DEAD, "connection lost", null);
          nodes.get(2).moveTo(NodeHealth.DEAD, "connection lost", null);
        });
    host.clock.forward(Duration.ofSeconds(10));
    assertThat(health(sick)).isEqualTo(NodeHealth.PROBING);

    // A caller's bad request, say: with no peer in rotation nothing says it stands out.
    detector.onCallFinished(sick, AnswerBlame.FAILED_ANSWER, true, host.clock.nanoTime());

    assertThat(health(sick)).isEqualTo(NodeHealth.ALIVE);
  }

  @Test
  void groupThatWasSickAlikeEjectsOneOfTheStillSickOnceAPeerRecoversAndNeverTheRecovered() {
    Node recovered = nodes.get(2);
    for (int i = 0; i < 40; i++) {
      for (Node n : nodes) {
        answer(n, AnswerBlame.FAILED_ANSWER);
      }
      host.clock.forward(Duration.ofMillis(10));
    }
    assertThat(moves).isEmpty();

    for (int i = 0; i < 80; i++) {
      for (Node n : nodes) {
        answer(n, n == recovered ? AnswerBlame.NONE : AnswerBlame.FAILED_ANSWER);
      }
      host.clock.forward(Duration.ofMillis(10));
    }

    // Half of three rounds down to one: the other sick node stays, the share cap holds.
    assertThat(moves).hasSize(1).allMatch(m -> m.endsWith("EJECTED") && !m.startsWith("7003"));
    Node out = health(nodes.get(0)) == NodeHealth.EJECTED ? nodes.get(0) : nodes.get(1);
    host.clock.forward(Duration.ofSeconds(10));
    assertThat(health(out)).isEqualTo(NodeHealth.PROBING);

    // Its peers fail half their calls between them: a failed probe still stands out by the gap.
    detector.onCallFinished(out, AnswerBlame.FAILED_ANSWER, true, host.clock.nanoTime());

    assertThat(health(out)).isEqualTo(NodeHealth.EJECTED);
    assertThat(health(recovered)).isNotEqualTo(NodeHealth.EJECTED);
  }
}
