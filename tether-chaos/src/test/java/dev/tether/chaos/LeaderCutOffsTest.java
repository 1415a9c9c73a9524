package dev.tether.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LeaderCutOffsTest {
  private long now;
  private final Ledger ledger = new Ledger(100, () -> 0);
  private final ExecutionLog log = new ExecutionLog(100, () -> now);

  /** Node 1 is cut off at 10, node 2 announced at 20. */
  private final LeaderCutOffs.LeaderCut cut = new LeaderCutOffs.LeaderCut(1, 10, 2, 20);

  private void ran(CallKind kind, int node, long at) {
    now = at;
    log.record(node, ledger.open(kind, false));
  }

  @Test
  void countsWritesPerServerAroundTheCutAndPassesWhenNoneCameAfterTheAnnouncement() {
    ran(CallKind.PRIMARY_NON_IDEMPOTENT, 1, 5);
    ran(CallKind.PRIMARY_NON_IDEMPOTENT, 1, 15);
    ran(CallKind.PRIMARY_NON_IDEMPOTENT, 2, 25);
    ran(CallKind.BLOCKING_NON_IDEMPOTENT, 1, 25);
    ran(CallKind.PRIMARY_IDEMPOTENT, 1, 25);

    LeaderCutOffs cuts = LeaderCutOffs.judge(List.of(cut), log, ledger, 3);

    assertThat(cuts.violations()).isEmpty();
    LeaderCutOffs.Cut c = cuts.cuts().get(0);
    assertThat(c.writesPerNode()).containsExactly(0, 2, 1);
    assertThat(c.deposedBefore()).isOne();
    assertThat(c.deposedCutToAnnounced()).isOne();
    assertThat(c.newLeaderAfter()).isOne();
  }

  @Test
  void failsOnAWriteOnTheDeposedLeaderAfterTheNewOneWasAnnounced() {
    ran(CallKind.PRIMARY_NON_IDEMPOTENT, 1, 21);

    LeaderCutOffs cuts = LeaderCutOffs.judge(List.of(cut), log, ledger, 3);

    assertThat(cuts.violations()).singleElement().asString().startsWith("1 writes ran on node 1");
    assertThat(cuts.cuts().get(0).lateWrites()).singleElement().asString().contains("primary");
  }

  @Test
  void failsOnASessionCallOnTheDeposedLeaderAfterTheNewOneWasAnnouncedAndCountsItApartFromWrites() {
    ran(CallKind.SESSION, 1, 15);
    ran(CallKind.SESSION, 2, 25);
    ran(CallKind.SESSION, 1, 30);

    LeaderCutOffs cuts = LeaderCutOffs.judge(List.of(cut), log, ledger, 3);

    assertThat(cuts.violations())
        .singleElement()
        .asString()
        .startsWith("1 session calls ran on node 1");
    LeaderCutOffs.Cut c = cuts.cuts().get(0);
    assertThat(c.sessionCallsOnDeposedAfter()).isOne();
    assertThat(c.deposedAfter()).as("writes").isZero();
    assertThat(c.writesPerNode()).containsExactly(0, 0, 0);
  }
}
