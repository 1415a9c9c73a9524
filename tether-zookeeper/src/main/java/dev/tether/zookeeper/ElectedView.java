package dev.tether.zookeeper;

import dev.tether.Topology;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.apache.curator.framework.recipes.cache.ChildData;

/**
 * The cluster view an election's nodes make, and the view a primary announces when it is no longer
 * sure it leads. Pure functions of what ZooKeeper holds, so they are tested as tables.
 *
 * <p>The epoch is twice the zxid that last wrote the leader's node: each member that becomes leader
 * writes its node (so each new leader's zxid is later than every write before it, its predecessor's
 * included), and the odd number in between belongs to a leader that stepped down: it outranks every
 * view of that leader's own election and none of the next one's.
 */
final class ElectedView {
  /** Curator's LeaderLatch names its nodes "...latch-" followed by the sequence number. */
  private static final String LATCH_NAME = "latch-";

  private ElectedView() {}

  /**
   * The view of the election nodes under {@code electionPath} ({@code nodes} may include that path
   * itself): the first node's id as primary, the others in the order they would take over, one
   * entry per id. Null while the leader's node carries no id yet.
   */
  static Topology of(String electionPath, Collection<ChildData> nodes) {
    List<ChildData> inOrder =
        nodes.stream()
            .filter(n -> !n.getPath().equals(electionPath) && n.getPath().contains(LATCH_NAME))
            .sorted(Comparator.comparing(ElectedView::sequence))
            .toList();
    if (inOrder.isEmpty()) {
      return null;
    }
    ChildData leader = inOrder.get(0);
    String primary = idOf(leader);
    if (primary.isEmpty()) {
      return null;
    }
    List<String> alternates = new ArrayList<>();
    for (ChildData n : inOrder) {
      // A participant whose node was just created may not carry its id yet.
      String id = idOf(n);
      if (!id.isEmpty() && !id.equals(primary) && !alternates.contains(id)) {
        alternates.add(id);
      }
    }
    return new Topology(primary, alternates, 2 * leader.getStat().getCzxid());
  }

  /**
   * What {@code self} announces when it cannot tell whether it still leads: if {@code announced}
   * names it primary, the same view without it, the next in line as primary, one epoch up; null
   * when there is no one else to name or it was not the primary.
   */
  static Topology steppedDown(Topology announced, String self) {
    if (announced == null
        || !announced.primary().equals(self)
        || announced.alternates().isEmpty()
        || announced.epoch() % 2 != 0) {
      return null;
    }
    List<String> others = announced.alternates();
    return new Topology(others.get(0), others.subList(1, others.size()), announced.epoch() + 1);
  }

  private static String sequence(ChildData node) {
    String path = node.getPath();
    return path.substring(path.lastIndexOf(LATCH_NAME) + LATCH_NAME.length());
  }

  private static String idOf(ChildData node) {
    byte[] data = node.getData();
    return data == null ? "" : new String(data, StandardCharsets.UTF_8);
  }
}
