package dev.tether.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ConnectFailedException;
import dev.tether.RemoteException;
import dev.tether.StreamLostException;
import org.junit.jupiter.api.Test;

class StreamLedgerTest {
  private final StreamLedger ledger = new StreamLedger(100, 10);

  @Test
  void passesWhenEveryStreamIsWholeOrReportedLost() {
    int whole = ledger.open();
    ledger.close(whole, 10, 0, 0, null);
    int resumed = ledger.open();
    ledger.resumed(resumed);
    ledger.close(resumed, 10, 0, 0, null);
    int lost = ledger.open();
    ledger.close(lost, 4, 0, 0, new StreamLostException("server shut down", 4));
    int neverOpened = ledger.open();
    ledger.close(neverOpened, 0, 0, 0, new ConnectFailedException("refused"));

    StreamTotals totals = ledger.judge();

    assertThat(totals.violations()).isEmpty();
    assertThat(totals.streams()).isEqualTo(4);
    assertThat(totals.completed()).isEqualTo(2);
    assertThat(totals.resumed()).isEqualTo(1);
    assertThat(totals.completedAfterResume()).isEqualTo(1);
    assertThat(totals.reportedLosses()).isEqualTo(1);
    assertThat(totals.failed()).isEqualTo(1);
    assertThat(totals.items()).isEqualTo(24);
    assertThat(totals.failureTypes())
        .containsEntry("lost: StreamLostException", 1L)
        .containsEntry("failed: ConnectFailedException", 1L);
  }

  @Test
  void aDuplicateOrASkippedItemIsAViolationAndOnAResumedStreamALossWhenResumed() {
    int twice = ledger.open();
    ledger.close(twice, 11, 1, 0, null);
    int skipped = ledger.open();
    ledger.resumed(skipped);
    ledger.close(skipped, 8, 0, 2, null);

    StreamTotals totals = ledger.judge();

    assertThat(totals.duplicates()).isEqualTo(1);
    assertThat(totals.gaps()).isEqualTo(2);
    assertThat(totals.lostWhenResumed()).isEqualTo(2);
    assertThat(totals.violations())
        .contains(
            "1 stream items delivered twice",
            "2 stream items skipped inside a stream",
            "2 stream items lost from resumed streams");
    assertThat(totals.examples())
        .anySatisfy(e -> assertThat(e).startsWith("stream 1 (resumed x1): 2 items skipped"));
  }

  @Test
  void aStreamThatCompletesShortIsASilentLoss() {
    int resumedShort = ledger.open();
    ledger.resumed(resumedShort);
    ledger.close(resumedShort, 7, 0, 0, null);

    StreamTotals totals = ledger.judge();

    assertThat(totals.shortCompletions()).isEqualTo(1);
    assertThat(totals.lostWhenResumed()).isEqualTo(3);
    assertThat(totals.examples())
        .containsExactly("stream 0 (resumed x1): completed with 7 of 10 items");
  }

  @Test
  void aLossWhoseDeliveredCountIsWrongAStreamThatNeverEndedAndARemoteErrorAreViolations() {
    int miscounted = ledger.open();
    ledger.close(miscounted, 5, 0, 0, new StreamLostException("lost", 3));
    ledger.open(); // never ends
    int remote = ledger.open();
    ledger.close(
        remote, 0, 0, 0, new RemoteException("java.lang.IllegalStateException", "feed broke"));

    StreamTotals totals = ledger.judge();

    assertThat(totals.violations())
        .containsExactlyInAnyOrder(
            "1 lost streams whose delivered() is not what arrived",
            "1 streams that never ended",
            "1 streams ended with an unexpected error");
  }

  @Test
  void theStreamIdComesFromTheEventsDetail() {
    assertThat(StreamLoad.streamIdOf("chaos-feed.s17: resumed")).isEqualTo(17);
    assertThat(StreamLoad.streamIdOf("chaos-feed.s: resumed")).isEqualTo(-1);
    assertThat(StreamLoad.streamIdOf("chaos.work: other")).isEqualTo(-1);
    assertThat(StreamLoad.streamIdOf(null)).isEqualTo(-1);
  }
}
