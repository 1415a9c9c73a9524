package dev.tether.server;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Reads one value from each of some server connections, each on its own event loop, so that nothing
 * is read off its owner: the reads are sent out together, then awaited at most a second each. A
 * connection whose loop has stopped, or does not answer in time, gives no value.
 */
final class ConnectionReads {
  private static final long WAIT_MILLIS = 1_000;

  private ConnectionReads() {}

  /** {@code read} of every connection that answered, in the order given. */
  static <T> List<T> onEachLoop(
      List<ServerConnection> connections, Function<ServerConnection, T> read) {
    return onEachLoop(connections, ServerConnection::channel, read);
  }

  /** {@code read} of every connection that answered, on the loop of its {@code channel}. */
  static <C, T> List<T> onEachLoop(
      List<C> connections, Function<C, Channel> channel, Function<C, T> read) {
    List<CompletableFuture<T>> pending = new ArrayList<>(connections.size());
    for (C c : connections) {
      pending.add(readOnLoop(c, channel.apply(c).eventLoop(), read));
    }
    List<T> values = new ArrayList<>(pending.size());
    for (CompletableFuture<T> f : pending) {
      try {
        values.add(f.get(WAIT_MILLIS, TimeUnit.MILLISECONDS));
      } catch (Exception notAnswered) {
        // A closing or stuck loop: its value is missing from this read.
      }
    }
    return values;
  }

  private static <C, T> CompletableFuture<T> readOnLoop(C c, EventLoop loop, Function<C, T> read) {
    CompletableFuture<T> value = new CompletableFuture<>();
    if (loop.inEventLoop()) {
      value.complete(
          read.apply(c)); // called on that loop (a handler polling): waiting would stall it
      return value;
    }
    try {
      loop.execute(() -> value.complete(read.apply(c)));
    } catch (RejectedExecutionException stopped) {
      value.completeExceptionally(stopped);
    }
    return value;
  }
}
