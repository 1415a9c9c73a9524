package dev.tether.server;

import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The requests of one connection in {@code ExecutionMode.SERIALIZED} (Ice's serialized thread
 * pool): they run one at a time, in the order they arrived, on threads of the shared service
 * executor, so a slow request holds up only its own connection. At most one turn of the lane is in
 * the server's run queue or running at a time; it runs a few calls, then yields its thread to other
 * connections. A lane waits in the run queue like a call, so when every thread is busy it waits for
 * one (within the queue's bound) instead of being refused.
 */
final class SerialLane implements QueuedWork {
  /** Calls run per turn before the lane goes back into the run queue. */
  private static final int CALLS_PER_TURN = 16;

  private final RunQueue runQueue;

  /** Filled by the connection's loop, drained by whichever executor thread holds the lane. */
  private final Queue<QueuedWork> queue = PlatformDependent.newMpscQueue();

  /** True while a turn of this lane is in the run queue or running; the only guard of order. */
  private final AtomicBoolean scheduled = new AtomicBoolean();

  SerialLane(RunQueue runQueue) {
    this.runQueue = runQueue;
  }

  /**
   * Queues {@code call} behind the connection's earlier ones (on the connection's loop; another
   * protocol's work from any thread).
   */
  void submit(QueuedWork call) {
    queue.offer(call);
    schedule();
  }

  private void schedule() {
    if (!scheduled.compareAndSet(false, true)) {
      return; // the turn queued or running will reach the call
    }
    runQueue.submit(this); // or, when the server cannot take it, refuse()
  }

  @Override
  public void run() {
    for (int i = 0; i < CALLS_PER_TURN; i++) {
      QueuedWork call = queue.poll();
      if (call == null) {
        break;
      }
      call.run();
    }
    scheduled.set(false);
    // A call queued after the last poll and before the flag dropped found the lane scheduled.
    if (!queue.isEmpty()) {
      schedule();
    }
  }

  /**
   * The run queue is full or the server closes: every queued call is answered REFUSED, in order.
   */
  @Override
  public void refuse() {
    QueuedWork call;
    while ((call = queue.poll()) != null) {
      call.refuse();
    }
    scheduled.set(false);
    if (!queue.isEmpty()) {
      schedule();
    }
  }
}
