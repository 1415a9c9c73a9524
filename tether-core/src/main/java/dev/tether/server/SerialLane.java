package dev.tether.server;

import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The requests of one connection in {@code ExecutionMode.SERIALIZED} (Ice's serialized thread
 * pool): they run one at a time, in the order they arrived, on threads of the shared service
 * executor, so a slow request holds up only its own connection. At most one task of the lane is
 * in the executor at a time; it runs a few calls, then yields its thread to other connections.
 */
final class SerialLane implements Runnable {
  /** Calls run per executor task before the lane goes back into the executor's queue. */
  private static final int CALLS_PER_TURN = 16;

  private final Executor executor;
  /** Filled by the connection's loop, drained by whichever executor thread holds the lane. */
  private final Queue<ServiceCall> queue = PlatformDependent.newMpscQueue();
  /** True while a task of this lane is in the executor or running; the only guard of order. */
  private final AtomicBoolean scheduled = new AtomicBoolean();

  SerialLane(Executor executor) {
    this.executor = executor;
  }

  /** Queues {@code call} behind the connection's earlier ones (on the connection's loop). */
  void submit(ServiceCall call) {
    queue.offer(call);
    schedule();
  }

  private void schedule() {
    if (!scheduled.compareAndSet(false, true)) {
      return; // the task in the executor will reach the call
    }
    try {
      executor.execute(this);
    } catch (RejectedExecutionException full) {
      refuseQueued();
    }
  }

  @Override
  public void run() {
    for (int i = 0; i < CALLS_PER_TURN; i++) {
      ServiceCall call = queue.poll();
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

  /** The executor is full or stopped: every queued call is answered REFUSED, in order. */
  private void refuseQueued() {
    ServiceCall call;
    while ((call = queue.poll()) != null) {
      call.refuse();
    }
    scheduled.set(false);
    if (!queue.isEmpty()) {
      schedule();
    }
  }
}
