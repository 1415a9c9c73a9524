package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.TetherException;
import dev.tether.client.ConnectionSupervisor.State;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;

/**
 * What one key's {@link ConnectionSupervisor} answers a call that asks for its connection: the
 * connection now, the attempt under way, a dial, a wait for the next scheduled attempt, or the
 * backoff's failure; and for a call's walk, which attempt it took part in and whether its later
 * round may redial after that one failed. Keeps whether any call asked since the last attempt
 * started, which attempts a call's demand started ({@link AttemptCount}), and the calls waiting for
 * the next attempt. Owned by its supervisor, on the runtime's control executor.
 */
final class KeyDemand {
  private final ConnectionSupervisor supervisor;

  /** True once a call asked for the key since its last attempt started. */
  private boolean asked;

  /** The key's attempts so far, for the calls whose later rounds may redial one they saw fail. */
  private final AttemptCount attempts = new AttemptCount();

  /** Calls waiting for ready for the next attempt; they follow it once it starts. */
  private final ReadyWaiters waiting = new ReadyWaiters();

  /** True once the runtime closes: a call is answered as by a shut key, and nothing is dialled. */
  private final BooleanSupplier closing;

  KeyDemand(ConnectionSupervisor supervisor, BooleanSupplier closing) {
    this.supervisor = supervisor;
    this.closing = closing;
  }

  /** True when a call asked for the key since its last attempt started. */
  boolean wasAsked() {
    return asked;
  }

  /** A lost connection's calls want it back, as if they had asked. */
  void askOnBehalfOfLostCalls() {
    asked = true;
  }

  /** An attempt started with {@code c}: nobody asked for the next one yet; the waiters follow. */
  void onAttemptStarted(RequestChannel c) {
    asked = false;
    attempts.started();
    waiting.followAll(c);
  }

  /** True while calls wait for the key's next attempt. */
  boolean hasWaiters() {
    return !waiting.isEmpty();
  }

  /** The key shut down: the calls waiting for its next attempt fail with {@code cause}. */
  void onShutdown(Throwable cause) {
    waiting.failAll(cause);
  }

  /**
   * Answers a call through {@code result}; see {@link ConnectionSupervisor#obtain(Candidate,
   * boolean, long, long, AttemptWitness)} for what the arguments mean.
   */
  void answer(
      Candidate forCall,
      boolean waitForReady,
      long deadlineNanos,
      long redialAfter,
      AttemptWitness witness,
      CompletableFuture<RequestChannel> result) {
    asked = true;
    settleEndedAttempt();
    boolean redial = redialAfter >= 0;
    State state = closing.getAsBoolean() ? State.SHUTDOWN : supervisor.state();
    if (witness != null && state == State.CONNECTING && (attempts.onDemand() || redial)) {
      witness.tookPart(attempts.current());
    }
    switch (state) {
      case SHUTDOWN ->
          result.completeExceptionally(new TetherException("the Tether runtime is closed"));
      case CONNECTING -> ReadyWaiters.follow(supervisor.current(), result);
      case READY -> ReadyWaiters.follow(readyOrReplacement(forCall, witness), result);
      case IDLE -> ReadyWaiters.follow(dial(forCall, witness), result);
      case TRANSIENT_FAILURE -> {
        if (redial && attempts.current() == redialAfter) {
          ReadyWaiters.follow(redial(forCall, witness), result);
        } else if (redial) {
          // a later attempt failed meanwhile: this round saw it fail
          witness.tookPart(attempts.current());
          result.completeExceptionally(backingOff());
        } else if (waitForReady
            && (deadlineNanos == 0 || deadlineNanos - supervisor.nextAttemptNanos() >= 0)) {
          waiting.add(result);
        } else {
          result.completeExceptionally(backingOff());
        }
      }
    }
  }

  /**
   * The READY key's connection, or (it no longer takes calls) its replacement under way, or a new
   * dial.
   */
  private RequestChannel readyOrReplacement(Candidate forCall, AttemptWitness witness) {
    RequestChannel current = supervisor.current();
    if (current.isUsable()) {
      return current;
    }
    RequestChannel replacement = supervisor.replacementUnderWay();
    return replacement != null ? replacement : dial(forCall, witness);
  }

  private RequestChannel dial(Candidate forCall, AttemptWitness witness) {
    RequestChannel c = supervisor.dial(forCall);
    attempts.startedOnDemand();
    if (witness != null) {
      witness.tookPart(attempts.current());
    }
    return c;
  }

  /**
   * A call's later round dials again the attempt it saw fail. The redial is not a demand of its
   * own: a call that only joins it may not redial after it in turn, or calls that keep arriving
   * would chain redials, each one dial, past the backoff's schedule.
   */
  private RequestChannel redial(Candidate forCall, AttemptWitness witness) {
    RequestChannel c = supervisor.dial(forCall);
    witness.tookPart(attempts.current());
    return c;
  }

  /**
   * An attempt whose failure a call heard of before the control executor did is settled first, so
   * that a call's redial never joins an attempt that already failed.
   */
  private void settleEndedAttempt() {
    RequestChannel current = supervisor.current();
    if (supervisor.state() != State.CONNECTING || !current.ready().isCompletedExceptionally()) {
      return;
    }
    try {
      current.ready().join();
    } catch (CompletionException | CancellationException failure) {
      supervisor.onAttemptDone(current, failure.getCause() != null ? failure.getCause() : failure);
    }
  }

  private TetherException backingOff() {
    return new ConnectFailedException(
        "not dialling " + supervisor.endpoint() + " while it backs off " + supervisor.backoffNote(),
        supervisor.lastFailure());
  }
}
