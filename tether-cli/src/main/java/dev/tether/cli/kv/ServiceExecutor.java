package dev.tether.cli.kv;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads a demo server runs service code on, shaped like Tether's default pool (a handful of
 * threads, growing to 256, no queue: a full pool makes the server answer REFUSED).
 *
 * <p>It exists for one reason. When a server is closed abruptly, a call still executing finishes
 * afterwards and hands its reply to an event loop that has terminated; tether-core lets the
 * resulting RejectedExecutionException escape the service thread, which prints a stack trace in
 * the middle of the demo. The reply has nowhere to go (its connection is gone and the client
 * already failed the call), so dropping it here is what the runtime should do itself. Remove this
 * class once tether-core drops such replies.
 */
final class ServiceExecutor implements Executor {
  private final ThreadPoolExecutor pool;

  ServiceExecutor(String serverName) {
    AtomicInteger threadNumber = new AtomicInteger();
    this.pool = new ThreadPoolExecutor(
        4, 256, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
        task -> {
          Thread t = new Thread(task, serverName + "-service-" + threadNumber.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /** Runs a call; throws RejectedExecutionException when full, which the server answers REFUSED. */
  @Override
  public void execute(Runnable call) {
    pool.execute(() -> {
      try {
        call.run();
      } catch (RejectedExecutionException lateReply) {
        // The reply of a call that outlived its server's event loops: nobody can receive it.
      }
    });
  }

  /** Interrupts running calls and stops at once, as an abrupt server close does. */
  void stopNow() {
    pool.shutdownNow();
  }

  /** Lets running calls finish, waiting at most {@code patience}. */
  void stop(Duration patience) throws InterruptedException {
    pool.shutdown();
    pool.awaitTermination(patience.toNanos(), TimeUnit.NANOSECONDS);
  }
}
