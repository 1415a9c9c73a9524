package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.client.ScriptedSupervisors;
import dev.tether.observe.TetherEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A node's health moves only through {@link Node#moveTo}: the table allows these moves and no
 * other, each move emits the event of the health it enters and tells the group, and a refused move
 * changes and emits nothing.
 */
class NodeTest {
  private final FakeNodeHost host = new FakeNodeHost();
  private final List<NodeHealth> toldTheGroup = new ArrayList<>();
  private final Node node = node();

  private Node node() {
    var candidate = ScriptedSupervisors.candidate(7001);
    return new Node(
        host, candidate, host.supervisor(candidate, ""), n -> toldTheGroup.add(n.health()));
  }

  private NodeHealth health() {
    NodeHealth[] h = new NodeHealth[1];
    host.control.execute(() -> h[0] = node.health());
    return h[0];
  }

  private boolean move(NodeHealth next) {
    boolean[] moved = new boolean[1];
    host.control.execute(() -> moved[0] = node.moveTo(next, "why " + next, null));
    return moved[0];
  }

  @Test
  void theTableAllowsExactlyTheMovesOfTheNodeStateMachine() {
    Set<String> allowed = new TreeSet<>();
    for (NodeHealth from : NodeHealth.values()) {
      for (NodeHealth to : NodeHealth.values()) {
        if (from.canBecome(to)) {
          allowed.add(from + " -> " + to);
        }
      }
    }

    assertThat(allowed)
        .containsExactlyInAnyOrder(
            "UNKNOWN -> ALIVE",
            "UNKNOWN -> DEAD",
            "UNKNOWN -> EJECTED",
            "UNKNOWN -> INCOMPATIBLE",
            "ALIVE -> DEAD",
            "ALIVE -> EJECTED",
            "ALIVE -> INCOMPATIBLE",
            "DEAD -> ALIVE",
            "DEAD -> PROBING",
            "DEAD -> INCOMPATIBLE",
            "EJECTED -> PROBING",
            "EJECTED -> DEAD",
            "PROBING -> ALIVE",
            "PROBING -> EJECTED",
            "PROBING -> DEAD",
            "PROBING -> INCOMPATIBLE");
  }

  @Test
  void everyMoveEmitsTheEventOfTheHealthItEntersWithItsReason() {
    assertThat(move(NodeHealth.ALIVE)).isTrue();
    assertThat(move(NodeHealth.EJECTED)).isTrue();
    assertThat(move(NodeHealth.PROBING)).isTrue();
    assertThat(move(NodeHealth.DEAD)).isTrue();
    assertThat(move(NodeHealth.INCOMPATIBLE)).isTrue();

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(host.events)
                    .extracting(e -> e.kind() + " " + e.endpoint() + ": " + e.detail())
                    .containsExactly(
                        "NODE_ALIVE tcp -h 127.0.0.1 -p 7001: why ALIVE",
                        "NODE_EJECTED tcp -h 127.0.0.1 -p 7001: why EJECTED",
                        "NODE_READMITTED tcp -h 127.0.0.1 -p 7001: why PROBING",
                        "NODE_DEAD tcp -h 127.0.0.1 -p 7001: why DEAD",
                        "NODE_INCOMPATIBLE tcp -h 127.0.0.1 -p 7001: why INCOMPATIBLE"));
    assertThat(toldTheGroup)
        .containsExactly(
            NodeHealth.ALIVE,
            NodeHealth.EJECTED,
            NodeHealth.PROBING,
            NodeHealth.DEAD,
            NodeHealth.INCOMPATIBLE);
  }

  @Test
  void deadNodeCannotBeEjected() {
    move(NodeHealth.DEAD);

    assertThat(move(NodeHealth.EJECTED)).isFalse();
    assertThat(health()).isEqualTo(NodeHealth.DEAD);
    assertThat(toldTheGroup).containsExactly(NodeHealth.DEAD);
  }

  @Test
  void ejectedNodeIsReadmittedOnlyThroughProbation() {
    move(NodeHealth.EJECTED);

    assertThat(move(NodeHealth.ALIVE)).as("connected is not healthy").isFalse();
    assertThat(move(NodeHealth.INCOMPATIBLE)).isFalse();
    assertThat(move(NodeHealth.PROBING)).isTrue();
    assertThat(move(NodeHealth.ALIVE)).isTrue();
  }

  @Test
  void incompatibleNodeNeverMovesAgain() {
    move(NodeHealth.INCOMPATIBLE);

    for (NodeHealth next : EnumSet.allOf(NodeHealth.class)) {
      assertThat(move(next)).as("INCOMPATIBLE -> " + next).isFalse();
    }
    assertThat(health()).isEqualTo(NodeHealth.INCOMPATIBLE);
  }

  @Test
  void aMoveToWhereTheNodeIsEmitsNothing() {
    move(NodeHealth.ALIVE);

    assertThat(move(NodeHealth.ALIVE)).isFalse();
    move(NodeHealth.DEAD);

    // The bus delivers in order: once DEAD is in, a second ALIVE would have been before it.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> host.events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.NODE_DEAD));
    assertThat(host.events)
        .extracting(TetherEvent::kind)
        .containsExactly(TetherEvent.Kind.NODE_ALIVE, TetherEvent.Kind.NODE_DEAD);
    assertThat(toldTheGroup).containsExactly(NodeHealth.ALIVE, NodeHealth.DEAD);
  }

  @Test
  void movesOnlyOnTheControlExecutor() {
    assertThatThrownBy(() -> node.moveTo(NodeHealth.ALIVE, "off the executor", null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not on the control executor");
  }
}
