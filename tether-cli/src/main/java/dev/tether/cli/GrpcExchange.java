package dev.tether.cli;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC call of {@code tether call --grpc} as a publisher of its response messages: the request
 * message is sent as it is, each response message goes to the subscriber as it asks for them (its
 * demand is the call's {@code request(n)}, so HTTP/2 flow control slows a server that outpaces the
 * terminal), and a status that is not OK fails the subscriber with the command's failure. One
 * subscriber only; the trailers stay for the command to print.
 */
final class GrpcExchange implements Flow.Publisher<byte[]> {
  private final Channel channel;
  private final MethodDescriptor<byte[], byte[]> method;
  private final Metadata headers;
  private final byte[] request;

  /** The call's deadline (its {@code grpc-timeout}); null for none. */
  private final Duration deadline;

  /** Set when the call ended, before its subscriber hears so. */
  private volatile Metadata trailers = new Metadata();

  GrpcExchange(
      Channel channel,
      MethodDescriptor<byte[], byte[]> method,
      Metadata headers,
      byte[] request,
      Duration deadline) {
    this.channel = channel;
    this.method = method;
    this.headers = headers;
    this.request = request;
    this.deadline = deadline;
  }

  /** Starts the call; its messages, end and failure go to {@code subscriber}. */
  @Override
  public void subscribe(Flow.Subscriber<? super byte[]> subscriber) {
    // A stream outlives its opening, so the proxy's invocation timeout does not bound it: the
    // deadline goes with the call itself.
    CallOptions options =
        deadline == null
            ? CallOptions.DEFAULT
            : CallOptions.DEFAULT.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
    Exchange exchange = new Exchange(channel.newCall(method, options), subscriber);
    // The subscriber hears of its subscription first (Reactive Streams rule 1.9); what it asks for
    // meanwhile waits for the call to start.
    subscriber.onSubscribe(exchange);
    exchange.start();
  }

  /**
   * The one message of a unary call; fails with the call's status, or when the server sent none.
   */
  CompletableFuture<byte[]> reply() {
    OneMessage one = new OneMessage();
    subscribe(one);
    return one.reply;
  }

  /** What the server sent after its messages; empty until the call ended. */
  Metadata trailers() {
    return trailers;
  }

  /** The running call: grpc-java's listener of it, and the subscription its subscriber holds. */
  private final class Exchange extends ClientCall.Listener<byte[]> implements Flow.Subscription {
    private final ClientCall<byte[], byte[]> call;
    private final Flow.Subscriber<? super byte[]> subscriber;

    /** What was asked for or cancelled before the call started; guarded by this. */
    private long demandBeforeStart;

    private boolean cancelledBeforeStart;
    private boolean started;

    Exchange(ClientCall<byte[], byte[]> call, Flow.Subscriber<? super byte[]> subscriber) {
      this.call = call;
      this.subscriber = subscriber;
    }

    void start() {
      call.start(this, headers);
      long demand;
      boolean cancelled;
      synchronized (this) {
        started = true;
        demand = demandBeforeStart;
        cancelled = cancelledBeforeStart;
      }
      if (cancelled) {
        call.cancel("cancelled by the command line", null);
        return;
      }
      if (demand > 0) {
        call.request(messages(demand));
      }
      call.sendMessage(request);
      call.halfClose();
    }

    @Override
    public void request(long n) {
      synchronized (this) {
        if (!started) {
          demandBeforeStart = Math.min(Integer.MAX_VALUE, demandBeforeStart + n);
          return;
        }
      }
      call.request(messages(n));
    }

    @Override
    public void cancel() {
      synchronized (this) {
        if (!started) {
          cancelledBeforeStart = true;
          return;
        }
      }
      call.cancel("cancelled by the command line", null);
    }

    @Override
    public void onMessage(byte[] message) {
      subscriber.onNext(message);
    }

    @Override
    public void onClose(Status status, Metadata trailersSent) {
      trailers = trailersSent;
      if (status.isOk()) {
        subscriber.onComplete();
      } else {
        subscriber.onError(GrpcTarget.failure(status));
      }
    }

    /** Flow's demand is a long; gRPC's an int. */
    private int messages(long n) {
      return (int) Math.min(Integer.MAX_VALUE, n);
    }
  }

  /** Keeps a unary call's response message. */
  private static final class OneMessage implements Flow.Subscriber<byte[]> {
    final CompletableFuture<byte[]> reply = new CompletableFuture<>();
    private byte[] message;

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      subscription.request(1);
    }

    @Override
    public void onNext(byte[] item) {
      message = item;
    }

    @Override
    public void onError(Throwable failure) {
      reply.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
      if (message == null) {
        reply.completeExceptionally(
            CliException.failed("the server ended the call OK without a response message", null));
      } else {
        reply.complete(message);
      }
    }
  }
}
