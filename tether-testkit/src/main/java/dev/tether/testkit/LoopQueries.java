package dev.tether.testkit;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Runs tasks over state confined to one event loop, from any thread, and returns their results: on
 * the loop when called there, else submitted and awaited. Once the loop has ended, a task runs on
 * the caller instead, over the final, quiescent state; what a task throws is thrown here.
 */
final class LoopQueries {
  private final EventLoop loop;

  LoopQueries(EventLoop loop) {
    this.loop = loop;
  }

  <T> T query(Supplier<T> task) {
    if (loop.inEventLoop()) {
      return task.get();
    }
    Future<T> result = submitUnlessEnding(task);
    if (result == null) {
      loop.terminationFuture().awaitUninterruptibly();
      return task.get();
    }
    if (!result.awaitUninterruptibly().isSuccess()) {
      throw rethrown(result.cause());
    }
    return result.getNow();
  }

  /** The task's future, or null when the loop is ending. */
  private <T> Future<T> submitUnlessEnding(Supplier<T> task) {
    if (loop.isShuttingDown()) {
      return null;
    }
    try {
      return loop.submit(task::get);
    } catch (RejectedExecutionException ending) {
      return null;
    }
  }

  private static RuntimeException rethrown(Throwable cause) {
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(cause);
  }
}
