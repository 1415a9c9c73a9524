package dev.tether.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Topology;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** The view an election's nodes make, and the view of a primary that steps down, as a table. */
class ElectedViewTest {
  private static final String ELECTION = "/tether/clusters/orders";
  private static final String A = "tcp -h 127.0.0.1 -p 7001";
  private static final String B = "tcp -h 127.0.0.1 -p 7002";
  private static final String C = "tcp -h 127.0.0.1 -p 7003";

  @Test
  void theLowestSequenceLeadsAndTheEpochIsTwiceTheZxidThatCreatedItsNode() {
    Topology view =
        ElectedView.of(
            ELECTION,
            List.of(
                new ChildData(ELECTION, new Stat(), new byte[0]),
                node("_c_2-latch-0000000007", C, 40),
                node("_c_1-latch-0000000003", A, 12),
                node("_c_3-latch-0000000005", B, 30)));

    assertThat(view).isEqualTo(new Topology(A, List.of(B, C), 24));
  }

  @Test
  void aLeaderWhoseNodeCarriesNoIdYetMakesNoView() {
    assertThat(ElectedView.of(ELECTION, List.of(node("_c_1-latch-0000000001", "", 3)))).isNull();
    assertThat(ElectedView.of(ELECTION, List.of())).isNull();
  }

  @Test
  void aPrimaryThatStepsDownNamesTheNextInLineOneEpochUp() {
    Topology stepped = ElectedView.steppedDown(new Topology(A, List.of(B, C), 24), A);

    assertThat(stepped).isEqualTo(new Topology(B, List.of(C), 25));
  }

  @Test
  void onlyThePrimaryStepsDownAndOnlyWhenSomeoneIsLeftToName() {
    assertThat(ElectedView.steppedDown(new Topology(A, List.of(B), 24), B)).isNull();
    assertThat(ElectedView.steppedDown(new Topology(A, List.of(), 24), A)).isNull();
    assertThat(ElectedView.steppedDown(new Topology(B, List.of(C), 25), B)).isNull();
    assertThat(ElectedView.steppedDown(null, A)).isNull();
  }

  private static ChildData node(String name, String id, long czxid) {
    Stat stat = new Stat();
    stat.setCzxid(czxid);
    return new ChildData(ELECTION + "/" + name, stat, id.getBytes(StandardCharsets.UTF_8));
  }
}
