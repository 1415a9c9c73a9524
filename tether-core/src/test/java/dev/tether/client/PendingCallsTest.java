package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The table of calls in flight on one connection, alone: ids, answers, forgetting, GOAWAY, close.
 */
class PendingCallsTest {
  private final PendingCalls pending = new PendingCalls();

  private Invocation written() {
    Invocation call = new Invocation(null, "put", new byte[0], 0, 0);
    call.requestId = pending.nextRequestId();
    pending.add(call);
    return call;
  }

  @Test
  void anAnswerTakesItsCallOutOnce() {
    Invocation call = written();
    assertThat(pending.take(call.requestId)).isSameAs(call);
    assertThat(pending.take(call.requestId)).isNull();
    assertThat(pending.isEmpty()).isTrue();
  }

  @Test
  void requestIdsSkipZeroWhenTheyWrapAround() {
    PendingCalls nearTheEnd = new PendingCalls(-2);
    assertThat(nearTheEnd.nextRequestId()).isEqualTo(-2);
    assertThat(nearTheEnd.nextRequestId()).isEqualTo(-1);
    assertThat(nearTheEnd.nextRequestId()).isEqualTo(1);
  }

  @Test
  void forgettingACallAlreadyAnsweredChangesNothing() {
    Invocation call = written();
    Invocation other = written();
    pending.take(call.requestId);
    assertThat(pending.forget(call)).isFalse();
    assertThat(pending.forget(other)).isTrue();
    assertThat(pending.isEmpty()).isTrue();
  }

  @Test
  void forgettingIgnoresALaterCallThatReusedTheId() {
    Invocation earlier = written();
    pending.take(earlier.requestId);
    Invocation later = new Invocation(null, "put", new byte[0], 0, 0);
    later.requestId = earlier.requestId;
    pending.add(later);
    assertThat(pending.forget(earlier)).isFalse();
    assertThat(pending.size()).isEqualTo(1);
  }

  @Test
  void goAwayTakesOnlyTheCallsAboveTheLastAcceptedId() {
    Invocation accepted = written();
    Invocation alsoAccepted = written();
    Invocation notAccepted = written();
    assertThat(pending.takeNotAccepted(alsoAccepted.requestId)).containsExactly(notAccepted);
    assertThat(pending.size()).isEqualTo(2);
    assertThat(pending.takeAll()).containsExactlyInAnyOrder(accepted, alsoAccepted);
    assertThat(pending.isEmpty()).isTrue();
  }
}
