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

/**
 * Ejection relative to the group, on the fake clock: a node whose failed answers (the service's own
 * errors included) stand out from its peers' over the same seconds is ejected once it had the
 * policy's minimum of calls, with the figures in the event; a group whose nodes fail alike ejects
 * none. The streak and success-rate rules are switched off here, so only the comparison acts.
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
                                            + " against 0 of its peers' 38 in the same seconds")));
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
}
