package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.CallPhase;
import dev.tether.CallPhase.Kind;
import dev.tether.InvocationTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The phases of a call's clock from the waits it recorded, at literal times (ms on the ticker). */
class CallExtrasTimelineTest {
  private static final long MS = 1_000_000L;

  /** A call made at 1000 ms with a 300 ms invocation timeout. */
  private final CallExtras extras = new CallExtras(1_300 * MS, 1_000 * MS);

  private static CallPhase phase(Kind kind, String endpoint, long millis) {
    return new CallPhase(kind, endpoint, Duration.ofMillis(millis));
  }

  @Test
  void aCallThatNeverWaitedHasNoTimeline() {
    assertThat(extras.timelineIfAny()).isNull();
  }

  @Test
  void backlogThenReplyAreTwoPhasesTheFirstFromTheCallsStart() {
    extras.waitIn(Kind.WAITING_FOR_SLOT, "A", 1_000 * MS);
    extras.waitIn(Kind.AWAITING_REPLY, "A", 1_120 * MS);

    InvocationTimeoutException e =
        extras.timedOut("op got no answer within 300 ms", null, () -> null, 1_300 * MS);
    assertThat(e.timeline())
        .containsExactly(
            phase(Kind.WAITING_FOR_SLOT, "A", 120), phase(Kind.AWAITING_REPLY, "A", 180));
    assertThat(e.getMessage())
        .isEqualTo(
            "op got no answer within 300 ms: WAITING_FOR_SLOT A 120 ms, AWAITING_REPLY A 180 ms");
  }

  @Test
  void aFailedAttemptThenTheRoundsDelayThenABackingOffEndpoint() {
    extras.waitIn(
        Kind.AWAITING_REPLY,
        "A",
        1_100 * MS); // the attempt on A failed at 1100: it waited from the start
    extras.waitIn(Kind.RETRY_DELAY, null, 1_100 * MS);
    extras.waitIn(Kind.CONNECTING, null, 1_200 * MS);

    CallTimeline.Wait dialing =
        new CallTimeline.Wait(Kind.BACKING_OFF, "B", "next attempt in 40 ms");
    InvocationTimeoutException e =
        extras.timedOut("op got no answer within 300 ms", null, () -> dialing, 1_300 * MS);
    assertThat(e.timeline())
        .containsExactly(
            phase(Kind.AWAITING_REPLY, "A", 100),
            phase(Kind.RETRY_DELAY, null, 100),
            phase(Kind.BACKING_OFF, "B", 100));
    assertThat(e.getMessage())
        .endsWith("RETRY_DELAY 100 ms, BACKING_OFF B 100 ms (next attempt in 40 ms)");
  }

  @Test
  void theSamePhaseAgainGoesOnInsteadOfStartingAnother() {
    extras.waitIn(Kind.CONNECTING, null, 1_000 * MS);
    extras.waitIn(Kind.CONNECTING, null, 1_050 * MS);

    assertThat(extras.timedOut("op", null, () -> null, 1_300 * MS).timeline())
        .containsExactly(phase(Kind.CONNECTING, null, 300));
  }

  @Test
  void aPlainWaitWithoutRecordsIsConnectingWhenTheCallHasNoConnection() {
    CallTimeline.Wait dialing =
        new CallTimeline.Wait(Kind.CONNECTING, "A", "transport connect not finished");
    InvocationTimeoutException e = extras.timedOut("op", null, () -> dialing, 1_300 * MS);
    assertThat(e.timeline()).containsExactly(phase(Kind.CONNECTING, "A", 300));
    assertThat(e.getMessage())
        .isEqualTo("op: CONNECTING A 300 ms (transport connect not finished)");
  }
}
