package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.TetherException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A call's future parks one waiting thread on itself, and every way it can complete wakes it. */
class ReplyFutureTest {
  private static final byte[] ANSWER = {4, 2};

  /** A future completed as an Invocation completes: its outcome settled, then the caller told. */
  private static final class Reply extends ReplyFuture {
    @Override
    String describe() {
      return "echo of test";
    }

    void answer(byte[] answer) {
      settle(answer);
      notifyEnded(answer, null);
    }
  }

  private final Reply reply = new Reply();
  private final AtomicReference<Object> outcome = new AtomicReference<>();
  private Thread waiter;

  @AfterEach
  void stopWaiter() throws InterruptedException {
    if (waiter != null) {
      reply.answer(ANSWER); // never leave a waiter behind
      waiter.join(TimeUnit.SECONDS.toMillis(10));
    }
  }

  /**
   * Starts a thread that waits in {@code wait}, its result or exception recorded in {@link
   * #outcome}.
   */
  private Thread waitIn(String name, java.util.concurrent.Callable<Object> wait) {
    Thread thread =
        new Thread(
            () -> {
              try {
                outcome.set(wait.call());
              } catch (Throwable t) {
                outcome.set(t);
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static void awaitParkedOn(Thread thread, Object blocker) {
    await("parked on " + blocker)
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                thread.getState() == Thread.State.WAITING
                    && LockSupport.getBlocker(thread) == blocker);
  }

  private void awaitOutcome() {
    await("the waiter's outcome").atMost(Duration.ofSeconds(10)).until(() -> outcome.get() != null);
  }

  @Test
  void joinParksOnTheFutureItselfAndWakesWithTheAnswer() {
    waiter = waitIn("joiner", reply::join);
    awaitParkedOn(waiter, reply);

    reply.answer(ANSWER);

    awaitOutcome();
    assertThat(outcome.get()).isSameAs(ANSWER);
  }

  @Test
  void aCallerCompletingTheFutureWakesAThreadParkedInJoin() {
    waiter = waitIn("joiner", reply::join);
    awaitParkedOn(waiter, reply);

    byte[] fallback = {7};
    reply.complete(fallback);

    awaitOutcome();
    assertThat(outcome.get()).isSameAs(fallback);
  }

  @Test
  void orTimeoutWakesAThreadParkedInJoin() {
    waiter = waitIn("joiner", () -> reply.orTimeout(50, TimeUnit.MILLISECONDS).join());

    awaitOutcome();
    assertThat((Throwable) outcome.get()).hasCauseInstanceOf(TimeoutException.class);
  }

  @Test
  void completeAsyncWakesAThreadParkedInJoin() {
    waiter = waitIn("joiner", reply::join);
    awaitParkedOn(waiter, reply);
    AtomicBoolean supplied = new AtomicBoolean();

    reply.completeAsync(
        () -> {
          supplied.set(true);
          return ANSWER;
        },
        Runnable::run);

    awaitOutcome();
    assertThat(outcome.get()).isSameAs(ANSWER);
    assertThat(supplied).isTrue();
  }

  @Test
  void aSecondWaitingThreadWaitsAsCompletableFutureDoesAndBothWake() throws Exception {
    waiter = waitIn("first", reply::join);
    awaitParkedOn(waiter, reply);
    AtomicReference<Object> second = new AtomicReference<>();
    Thread other = new Thread(() -> second.set(reply.join()), "second");
    other.setDaemon(true);
    other.start();
    await("second parked")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                other.getState() == Thread.State.WAITING && LockSupport.getBlocker(other) != reply);

    reply.answer(ANSWER);

    awaitOutcome();
    other.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(outcome.get()).isSameAs(ANSWER);
    assertThat(second.get()).isSameAs(ANSWER);
  }

  @Test
  void anInterruptedGetThrowsInterruptedExceptionWithoutTheAnswer() {
    waiter = waitIn("getter", reply::get);
    awaitParkedOn(waiter, reply);

    waiter.interrupt();

    awaitOutcome();
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    assertThat(reply.isDone()).isFalse();
  }

  @Test
  void anInterruptedJoinKeepsWaitingAndReturnsWithItsInterruptStatusSet() {
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    waiter =
        waitIn(
            "joiner",
            () -> {
              byte[] answer = reply.join();
              interruptedAfter.set(Thread.currentThread().isInterrupted());
              return answer;
            });
    awaitParkedOn(waiter, reply);

    waiter.interrupt();
    // Still waiting, and on the future again, once the interrupt is taken note of.
    awaitParkedOn(waiter, reply);
    assertThat(outcome.get()).isNull();
    reply.answer(ANSWER);

    awaitOutcome();
    assertThat(outcome.get()).isSameAs(ANSWER);
    assertThat(interruptedAfter).isTrue();
  }

  @Test
  void anInterruptedBlockingCallThrowsTethersExceptionNamingTheCall() {
    waiter = waitIn("caller", reply::awaitReply);
    awaitParkedOn(waiter, reply);

    waiter.interrupt();

    awaitOutcome();
    assertThat((Throwable) outcome.get())
        .isInstanceOf(TetherException.class)
        .hasMessage("interrupted while waiting for echo of test");
  }

  @Test
  void aFailedCallsGetThrowsExecutionExceptionWithTheCause() {
    TetherException failure = new TetherException("the server went away");
    reply.settleExceptionally(failure);

    assertThatThrownBy(reply::get).isInstanceOf(ExecutionException.class).hasCause(failure);
    assertThat(CompletableFuture.anyOf(reply).isCompletedExceptionally()).isTrue();
  }
}
