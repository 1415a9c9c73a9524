package dev.tether.admin;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Writes one admin connection's answers in the order its requests came, as HTTP/1.1 pipelining
 * requires, although some answers (snapshots, metrics) are made on the worker and finish out of
 * order. Each answer is written on the connection's event loop once it and every earlier one are
 * done. After an answer that ends the connection (close, or a stream that never ends) later
 * requests get no answer, and at most {@link #MAX_PENDING} wait at once: more end the connection.
 */
final class ResponseOrder {
  /** Answers one connection may have waiting; a client that pipelines more is cut off. */
  static final int MAX_PENDING = 16;

  private static final AttributeKey<ResponseOrder> KEY = AttributeKey.valueOf("tether-admin-order");

  private final Channel channel;

  /** Completes once every answer queued so far is written. Event loop only. */
  private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

  private int pending;
  private boolean ended;

  private ResponseOrder(Channel channel) {
    this.channel = channel;
  }

  /** The connection's order, made on its first request. Event loop only. */
  static ResponseOrder of(Channel channel) {
    ResponseOrder order = channel.attr(KEY).get();
    if (order == null) {
      order = new ResponseOrder(channel);
      channel.attr(KEY).set(order);
    }
    return order;
  }

  /** False once an answer that ends the connection was written: later requests get none. */
  boolean accepts() {
    return !ended;
  }

  /** True when one more answer would be more than {@link #MAX_PENDING} waiting. */
  boolean full() {
    return pending >= MAX_PENDING;
  }

  /**
   * Queues an answer: {@code write} runs with it on the event loop after every earlier answer was
   * written, unless one of those ended the connection.
   *
   * @param endsConnection whether nothing may follow that answer (a close, a stream)
   */
  <T> void then(CompletableFuture<T> answer, Predicate<T> endsConnection, Consumer<T> write) {
    pending++;
    tail =
        tail.thenCombine(answer, (earlier, mine) -> mine)
            .thenAcceptAsync(
                mine -> {
                  pending--;
                  if (!ended) {
                    ended = endsConnection.test(mine);
                    write.accept(mine);
                  }
                },
                channel.eventLoop());
  }
}
