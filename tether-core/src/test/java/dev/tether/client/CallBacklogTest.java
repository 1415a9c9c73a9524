package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The calls waiting for a slot, alone: arrival order, one report per saturation, finished calls
 * skipped.
 */
class CallBacklogTest {
  private final CallBacklog backlog = new CallBacklog();

  private static Invocation call() {
    return new Invocation(null, "put", new byte[0], 0, 0);
  }

  @Test
  void theRuntimeHearsOncePerSaturation() {
    assertThat(backlog.add(call())).isTrue();
    assertThat(backlog.add(call())).isFalse();
    backlog.nextLive();
    backlog.nextLive();
    assertThat(backlog.nextLive()).as("empty").isNull();
    assertThat(backlog.add(call())).as("a new saturation").isTrue();
  }

  @Test
  void callsLeaveInArrivalOrderAndFinishedOnesTakeNoSlot() {
    Invocation first = call();
    Invocation cancelled = call();
    Invocation third = call();
    backlog.add(first);
    backlog.add(cancelled);
    backlog.add(third);
    cancelled.cancel(false);
    assertThat(backlog.nextLive()).isSameAs(first);
    assertThat(backlog.nextLive()).isSameAs(third);
    assertThat(backlog.nextLive()).isNull();
  }

  @Test
  void aSaturationEndsOnlyWhenNothingWaits() {
    backlog.add(call());
    backlog.endSaturationIfEmpty();
    assertThat(backlog.add(call())).as("still saturated").isFalse();
    backlog.poll();
    backlog.poll();
    backlog.endSaturationIfEmpty();
    assertThat(backlog.add(call())).isTrue();
  }
}
