package dev.tether.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ConnectionLostException;
import dev.tether.NoAvailableNodeException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import dev.tether.ServiceNotFoundException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LedgerTest {
  private final AtomicInteger outages = new AtomicInteger();
  private final Ledger ledger = new Ledger(100, outages::get);

  @Test
  void passesWhenEveryCallRanAsItsCallerWasTold() {
    int ok = ledger.open(CallKind.BLOCKING_NON_IDEMPOTENT, false);
    ledger.executed(ok);
    ledger.close(ok, null);
    int doubt = ledger.open(CallKind.ASYNC_NON_IDEMPOTENT, false);
    ledger.executed(doubt);
    ledger.close(doubt, new CompletionException(new ConnectionLostException("lost", true)));
    int refused = ledger.open(CallKind.SESSION, false);
    ledger.close(refused, new RequestRefusedException("refused"));
    int retried = ledger.open(CallKind.BLOCKING_IDEMPOTENT, false);
    ledger.executed(retried);
    ledger.executed(retried);
    ledger.close(retried, null);

    LedgerTotals totals = ledger.judge();

    assertThat(totals.violations()).isEmpty();
    assertThat(totals.count(Outcome.OK)).isEqualTo(2);
    assertThat(totals.count(CallKind.ASYNC_NON_IDEMPOTENT, Outcome.MAY_HAVE_EXECUTED)).isEqualTo(1);
    assertThat(totals.executions()).isEqualTo(4);
  }

  @Test
  void failsOnADuplicateExecutionOfANonIdempotentCall() {
    int id = ledger.open(CallKind.PRIMARY_NON_IDEMPOTENT, false);
    ledger.executed(id);
    ledger.executed(id);
    ledger.close(id, new ConnectionLostException("lost", true));

    assertThat(ledger.judge().duplicates()).isEqualTo(1);
  }

  @Test
  void failsWhenACallReportedNotExecutedDidRun() {
    int id = ledger.open(CallKind.BLOCKING_NON_IDEMPOTENT, false);
    ledger.executed(id);
    ledger.close(id, new ConnectionLostException("never sent", false));

    assertThat(ledger.judge().falseNotExecuted()).isEqualTo(1);
  }

  @Test
  void failsOnAnIdempotentFailureUnlessNoNodeWasUp() {
    int failed = ledger.open(CallKind.ASYNC_IDEMPOTENT, false);
    ledger.close(failed, new NoAvailableNodeException("none"));
    int duringOutage = ledger.open(CallKind.ASYNC_IDEMPOTENT, false);
    outages.incrementAndGet();
    ledger.close(duringOutage, new NoAvailableNodeException("none"));

    LedgerTotals totals = ledger.judge();

    assertThat(totals.idempotentFailures()).isEqualTo(1);
    assertThat(totals.excusedFailures()).isEqualTo(1);
  }

  @Test
  void failsOnACallThatNeverCompletedAndOnAnUnexpectedError() {
    ledger.open(CallKind.ONEWAY, false);
    int remote = ledger.open(CallKind.BLOCKING_NON_IDEMPOTENT, false);
    ledger.executed(remote);
    ledger.close(remote, new RemoteException("java.lang.IllegalStateException", "boom"));

    LedgerTotals totals = ledger.judge();

    assertThat(totals.lost()).isEqualTo(1);
    assertThat(totals.otherFailures()).isEqualTo(1);
    assertThat(totals.violations()).hasSize(2);
  }

  @Test
  void opensNoMoreCallsThanItsCapacity() {
    Ledger small = new Ledger(2, outages::get);

    assertThat(small.open(CallKind.ONEWAY, false)).isZero();
    assertThat(small.open(CallKind.ONEWAY, false)).isOne();
    assertThat(small.open(CallKind.ONEWAY, false)).isEqualTo(-1);
    assertThat(small.calls()).isEqualTo(2);
  }

  @Test
  void countsASickNodesErrorAsAnAnswerNotALossNorAnUnexpectedFailure() {
    int idempotent = ledger.open(CallKind.BLOCKING_IDEMPOTENT, false);
    ledger.close(idempotent, sickAnswer());
    int pinned = ledger.open(CallKind.PRIMARY_NON_IDEMPOTENT, false);
    ledger.close(pinned, new CompletionException(sickAnswer()));

    LedgerTotals totals = ledger.judge();

    assertThat(totals.violations()).isEmpty();
    assertThat(totals.count(Outcome.SICK_ANSWER)).isEqualTo(2);
    assertThat(totals.sickAnswersBalanced()).isOne();
    assertThat(totals.sickAnswersPinned()).isOne();
    assertThat(ledger.sickAnswerTimes()).hasSize(1);
  }

  @Test
  void failsWhenANonIdempotentCallAnsweredBySickNodeHadRunElsewhere() {
    int id = ledger.open(CallKind.ASYNC_NON_IDEMPOTENT, false);
    ledger.executed(id);
    ledger.close(id, sickAnswer());

    assertThat(ledger.judge().falseNotExecuted()).isOne();
  }

  @Test
  void failsOnServiceNotFoundThroughTheRoundRobinGroupButNotThroughAPinnedProxy() {
    int balanced = ledger.open(CallKind.ASYNC_IDEMPOTENT, false);
    ledger.close(balanced, new ServiceNotFoundException("no service \"chaos\" on any node"));
    int pinned = ledger.open(CallKind.SESSION, false);
    ledger.close(pinned, new ServiceNotFoundException("no service \"chaos\""));

    LedgerTotals totals = ledger.judge();

    assertThat(totals.notFoundBalanced()).isOne();
    assertThat(totals.notFoundPinned()).isOne();
    assertThat(totals.idempotentFailures()).isZero();
    assertThat(totals.violations()).singleElement().asString().contains("SERVICE_NOT_FOUND");
  }

  @Test
  void anApplicationErrorOtherThanSicknessStaysAnUnexpectedFailure() {
    int id = ledger.open(CallKind.BLOCKING_IDEMPOTENT, false);
    ledger.close(id, new RemoteException("java.lang.IllegalStateException", "sick?"));

    assertThat(ledger.judge().otherFailures()).isOne();
  }

  private static RemoteException sickAnswer() {
    return new RemoteException(
        ChaosService.SickNodeException.class.getName(), "this node is sick: its database is down");
  }
}
