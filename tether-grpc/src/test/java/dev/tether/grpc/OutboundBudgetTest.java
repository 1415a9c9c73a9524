package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.testing.ManualClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When a send that waits for room in its connection's {@link OutboundBudget} goes on or gives up,
 * on a fake clock: it goes once the connection is down to half its limit or its own call is ready
 * again, and gives up no sooner than a stall period after its own call's bytes last moved, and
 * within two.
 */
@Timeout(30)
class OutboundBudgetTest {
  private static final Duration STALL = Duration.ofSeconds(10);
  private static final Duration HALF = STALL.dividedBy(2);
  private static final long LIMIT = 100;

  private final ManualClock clock = new ManualClock(0);
  private final OutboundBudget budget = new OutboundBudget(LIMIT, STALL.toNanos(), clock);
  private Thread sending;

  /** A call as its waiting send sees it; the test moves it. */
  private static final class Call implements OutboundBudget.Sender {
    volatile boolean open = true;
    volatile boolean ready;
    volatile long progress;
    final AtomicInteger looks = new AtomicInteger();

    @Override
    public boolean open() {
      looks.incrementAndGet();
      return open;
    }

    @Override
    public boolean ready() {
      return ready;
    }

    @Override
    public long progress() {
      return progress;
    }
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (sending != null) {
      sending.interrupt();
      sending.join(5_000);
    }
  }

  /** The connection full, and a send of {@code call} past its threshold waiting for room. */
  private CompletableFuture<Boolean> waitingSend(Call call) {
    Call other = new Call();
    other.ready = true;
    assertThat(budget.take(LIMIT, other)).isTrue();
    CompletableFuture<Boolean> taken = new CompletableFuture<>();
    sending = new Thread(() -> taken.complete(budget.take(10, call)));
    sending.start();
    awaitWaiting(call, 0, taken);
    return taken;
  }

  /** Until the send looked at its call again (after {@code looks}) and waits, or gave up. */
  private void awaitWaiting(Call call, int looks, CompletableFuture<Boolean> taken) {
    await()
        .pollInterval(Duration.ofMillis(1))
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                taken.isDone()
                    || (call.looks.get() > looks && sending.getState() == Thread.State.WAITING));
  }

  /** Moves the clock, running the stall checks due, and lets the send look again. */
  private void forward(Duration d, Call call, CompletableFuture<Boolean> taken) {
    int looks = call.looks.get();
    clock.forward(d);
    awaitWaiting(call, looks, taken);
  }

  @Test
  void aSendWhoseCallsBytesNeverMoveGivesUpAfterOneStallPeriodAndNoMoreThanTwo() throws Exception {
    Call call = new Call();
    CompletableFuture<Boolean> taken = waitingSend(call);

    forward(HALF, call, taken);
    forward(HALF, call, taken);
    assertThat(taken).isNotDone();
    forward(HALF, call, taken);

    assertThat(taken.get(5, TimeUnit.SECONDS)).isFalse();
    assertThat(budget.held()).isEqualTo(LIMIT);
    assertThat(budget.waiting()).isZero();
  }

  @Test
  void aSendWhoseCallsBytesMoveWaitsOnAndGivesUpWithinTwoStallPeriodsAfterTheyStop()
      throws Exception {
    Call call = new Call();
    CompletableFuture<Boolean> taken = waitingSend(call);
    forward(HALF, call, taken);
    forward(HALF, call, taken);

    call.progress = 1;
    forward(HALF, call, taken);
    forward(HALF, call, taken);
    forward(HALF, call, taken);
    assertThat(taken).isNotDone();
    forward(HALF, call, taken);

    assertThat(taken.get(5, TimeUnit.SECONDS)).isFalse();
  }

  @Test
  void aWaitingSendGoesOnWhenItsCallIsReadyAgainThoughTheConnectionIsFull() throws Exception {
    Call call = new Call();
    CompletableFuture<Boolean> taken = waitingSend(call);

    call.ready = true;
    budget.wake();

    assertThat(taken.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(budget.held()).isEqualTo(LIMIT + 10);
  }

  @Test
  void aWaitingSendGoesOnOnceTheConnectionIsDownToHalfItsLimit() throws Exception {
    Call call = new Call();
    CompletableFuture<Boolean> taken = waitingSend(call);

    budget.give(LIMIT / 2 - 1);
    assertThat(taken).isNotDone();
    assertThat(budget.waiting()).isOne();
    budget.give(1);

    assertThat(taken.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(budget.held()).isEqualTo(LIMIT / 2 + 10);
  }

  @Test
  void aWaitingSendGivesUpAtOnceWhenItsCallEnds() throws Exception {
    Call call = new Call();
    CompletableFuture<Boolean> taken = waitingSend(call);

    call.open = false;
    budget.wake();

    assertThat(taken.get(5, TimeUnit.SECONDS)).isFalse();
    assertThat(budget.held()).isEqualTo(LIMIT);
  }
}
