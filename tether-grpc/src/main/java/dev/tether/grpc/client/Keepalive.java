package dev.tether.grpc.client;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.util.concurrent.TimeUnit;

/**
 * One connection's liveness under its {@link KeepalivePolicy}: while calls are open and nothing was
 * read for the policy's time, a PING; no answer within its timeout and the connection is dead.
 * Reads the runtime's injected clock and schedules on the runtime's scheduler (whose tasks run on
 * the connection's event loop), so its decisions run on a fake clock in tests; every method on the
 * loop.
 */
final class Keepalive {
  /** What the liveness PING carries, so its answer is told from others. */
  static final long PING_DATA = 0x7465746865726b61L;

  /** What the connection does for its liveness. */
  interface Owner {
    /** True while the connection carries calls: only then is it pinged. */
    boolean hasCalls();

    void sendPing(long data);

    /** No answer in time: the server is gone or frozen. */
    void onPeerSilent(String why);
  }

  private final KeepalivePolicy policy;
  private final Owner owner;
  private final Ticker ticker;

  /** Keeps time and runs the checks on the connection's event loop. */
  private final Scheduler loop;

  /** True once the connection is ready and until it stops. */
  private boolean watching;

  private long lastReadNanos;

  /** Non-null while a check is scheduled. */
  private Scheduler.Cancellable check;

  /** Non-null while a PING waits for its answer. */
  private Scheduler.Cancellable answerDue;

  private boolean stopped;

  Keepalive(KeepalivePolicy policy, Owner owner, Ticker ticker, Scheduler loop) {
    this.policy = policy;
    this.owner = owner;
    this.ticker = ticker;
    this.loop = loop;
  }

  /** The connection is ready: the watch begins. */
  void start() {
    if (policy.isOn() && !stopped) {
      watching = true;
      lastReadNanos = ticker.nanoTime();
      schedule(policy.timeNanos());
    }
  }

  /** Something was read: the server lives. */
  void onRead() {
    if (watching) {
      lastReadNanos = ticker.nanoTime();
    }
  }

  void onPingAnswered(long data) {
    if (data == PING_DATA && answerDue != null) {
      answerDue.cancel();
      answerDue = null;
    }
  }

  void stop() {
    stopped = true;
    watching = false;
    if (check != null) {
      check.cancel();
      check = null;
    }
    if (answerDue != null) {
      answerDue.cancel();
      answerDue = null;
    }
  }

  private void check() {
    check = null;
    if (stopped) {
      return;
    }
    long time = policy.timeNanos();
    long quiet = ticker.nanoTime() - lastReadNanos;
    if (answerDue != null || !owner.hasCalls() || quiet < time) {
      schedule(answerDue != null || !owner.hasCalls() ? time : time - quiet);
      return;
    }
    owner.sendPing(PING_DATA);
    long timeout = policy.timeoutNanos();
    answerDue = loop.schedule(() -> onAnswerDue(timeout), timeout);
    schedule(time);
  }

  private void onAnswerDue(long timeoutNanos) {
    if (answerDue == null || stopped) {
      return; // answered or stopped while this task was on its way to the loop
    }
    answerDue = null;
    owner.onPeerSilent(
        "no answer to a keepalive PING within "
            + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
            + " ms");
  }

  private void schedule(long delayNanos) {
    check = loop.schedule(this::check, delayNanos);
  }
}
