package dev.tether.grpc.client;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One connection's liveness under its {@link KeepalivePolicy}: while calls are open and nothing was
 * read for the policy's time, a PING; no answer within its timeout and the connection is dead.
 * Reads nothing but the event loop's own clock and timers; every method on the loop.
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
  private ChannelHandlerContext ctx;
  private long lastReadNanos;

  /** Non-null while a check is scheduled. */
  private Future<?> check;

  /** Non-null while a PING waits for its answer. */
  private Future<?> answerDue;

  private boolean stopped;

  Keepalive(KeepalivePolicy policy, Owner owner) {
    this.policy = policy;
    this.owner = owner;
  }

  /** The connection is ready: the watch begins. */
  void start(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (policy.isOn() && !stopped) {
      lastReadNanos = now();
      schedule(policy.timeNanos());
    }
  }

  /** Something was read: the server lives. */
  void onRead() {
    if (ctx != null) {
      lastReadNanos = now();
    }
  }

  void onPingAnswered(long data) {
    if (data == PING_DATA && answerDue != null) {
      answerDue.cancel(false);
      answerDue = null;
    }
  }

  void stop() {
    stopped = true;
    if (check != null) {
      check.cancel(false);
    }
    if (answerDue != null) {
      answerDue.cancel(false);
    }
  }

  private void check() {
    check = null;
    if (stopped) {
      return;
    }
    long time = policy.timeNanos();
    long quiet = now() - lastReadNanos;
    if (answerDue != null || !owner.hasCalls() || quiet < time) {
      schedule(answerDue != null || !owner.hasCalls() ? time : time - quiet);
      return;
    }
    owner.sendPing(PING_DATA);
    long timeout = policy.timeoutNanos();
    answerDue =
        ctx.executor()
            .schedule(
                () ->
                    owner.onPeerSilent(
                        "no answer to a keepalive PING within "
                            + TimeUnit.NANOSECONDS.toMillis(timeout)
                            + " ms"),
                timeout,
                TimeUnit.NANOSECONDS);
    schedule(time);
  }

  private void schedule(long delayNanos) {
    check = ctx.executor().schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
  }

  private long now() {
    return ctx.executor().ticker().nanoTime();
  }
}
