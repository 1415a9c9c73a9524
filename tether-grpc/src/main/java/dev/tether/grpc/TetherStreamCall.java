package dev.tether.grpc;

import dev.tether.spi.WireProtocol;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Flow;

/**
 * One stream of a Tether stream service, opened by a gRPC call: the call's first message is the
 * stream's opening request, the messages after it are the items a bidirectional stream receives
 * (its half-close ends them), and each item the service publishes is a response message. The
 * service's publisher is asked for one item at a time, and only while the call is ready ({@link
 * ServerCall#isReady}, which the client's HTTP/2 window holds back), so a slow client slows the
 * service instead of filling the server; the client's messages are asked for only as the service
 * asks for items. A client that cancels cancels the service's subscription.
 */
final class TetherStreamCall extends ServerCall.Listener<byte[]>
    implements Flow.Subscriber<byte[]> {
  private final WireProtocol.TetherStreamService service;
  private final String operation;
  private final ServerCall<byte[], byte[]> call;
  private final Inbound inbound = new Inbound();

  /** Set and read by listener events only, which run one at a time. */
  private boolean opened;

  // Guarded by this: the service's items as the call takes them.

  /** Null until the service's publisher subscribed this. */
  private Flow.Subscription subscription;

  /** One item was asked for and has not come yet. */
  private boolean asking;

  /** The call ended, or the service's items did: nothing more is asked for. */
  private boolean done;

  private TetherStreamCall(
      WireProtocol.TetherStreamService service, String operation, ServerCall<byte[], byte[]> call) {
    this.service = service;
    this.operation = operation;
    this.call = call;
    call.request(1); // the opening request
  }

  /**
   * The streaming method for {@code fullName} when {@code host} has a Tether stream service named
   * {@code service} that may have the stream {@code operation}; else null.
   */
  static ServerMethodDefinition<byte[], byte[]> find(
      WireProtocol.Host host, String fullName, String service, String operation) {
    WireProtocol.TetherStreamService streams = host.tetherStreamService(service);
    if (streams == null || !streams.hasOperation(operation)) {
      return null;
    }
    MethodDescriptor<byte[], byte[]> method =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
            .setFullMethodName(fullName)
            .setRequestMarshaller(RawBytes.INSTANCE)
            .setResponseMarshaller(RawBytes.INSTANCE)
            .build();
    return ServerMethodDefinition.create(
        method, (call, headers) -> new TetherStreamCall(streams, operation, call));
  }

  // The call's events, one at a time on the service's executor.

  @Override
  public void onMessage(byte[] message) {
    if (opened) {
      inbound.deliver(message);
      return;
    }
    opened = true;
    Flow.Publisher<byte[]> items;
    try {
      items = service.open(operation, message, inbound, GrpcServerCall.CALL.get());
      if (items == null) {
        throw new NullPointerException("the stream service returned no publisher");
      }
    } catch (Throwable t) {
      end(TetherMethods.statusOf(t));
      return;
    }
    items.subscribe(this);
  }

  @Override
  public void onHalfClose() {
    if (!opened) {
      end(Status.INTERNAL.withDescription("a stream's opening got no request message"));
      return;
    }
    inbound.complete();
  }

  @Override
  public void onReady() {
    askIfReady();
  }

  @Override
  public void onCancel() {
    Flow.Subscription s;
    synchronized (this) {
      done = true;
      s = subscription;
    }
    if (s != null) {
      s.cancel();
    }
    inbound.fail(new CancellationException("the gRPC client cancelled the stream"));
  }

  // The service's items, from whichever thread its publisher signals on.

  @Override
  public void onSubscribe(Flow.Subscription s) {
    synchronized (this) {
      if (subscription == null && !done) {
        subscription = s;
        s = null;
      }
    }
    if (s != null) {
      s.cancel(); // a second subscription, or the client is gone already
      return;
    }
    askIfReady();
  }

  @Override
  public void onNext(byte[] item) {
    synchronized (this) {
      asking = false;
      if (done) {
        return;
      }
    }
    call.sendMessage(item);
    askIfReady();
  }

  @Override
  public void onError(Throwable failure) {
    end(TetherMethods.statusOf(failure));
  }

  @Override
  public void onComplete() {
    end(Status.OK);
  }

  /** One more item, when none is on its way and the client can take it now. */
  private void askIfReady() {
    Flow.Subscription s;
    synchronized (this) {
      if (done || asking || subscription == null || !call.isReady()) {
        return;
      }
      asking = true;
      s = subscription;
    }
    s.request(1);
  }

  private void end(Status status) {
    synchronized (this) {
      if (done) {
        return;
      }
      done = true;
    }
    call.close(status, new Metadata());
  }

  /**
   * The client's messages after the opening, for a bidirectional stream's service: asked of the
   * client as the service asks for them, ended by the client's half-close.
   */
  private final class Inbound implements Flow.Publisher<byte[]>, Flow.Subscription {
    /** Guarded by this; null until the service subscribes. */
    private Flow.Subscriber<? super byte[]> subscriber;

    /** Guarded by this: how the client's messages ended, null while they go on. */
    private Throwable ended;

    private boolean cancelled;

    @Override
    public synchronized void subscribe(Flow.Subscriber<? super byte[]> s) {
      if (subscriber != null) {
        s.onSubscribe(this);
        s.onError(new IllegalStateException("a stream's inbound items have one subscriber"));
        return;
      }
      subscriber = s;
      s.onSubscribe(this);
      if (ended != null) {
        signalEnd();
      }
    }

    @Override
    public void request(long n) {
      if (n <= 0) {
        fail(new IllegalArgumentException("request(" + n + "): rule 3.9 wants a positive count"));
        return;
      }
      call.request((int) Math.min(n, Integer.MAX_VALUE));
    }

    @Override
    public synchronized void cancel() {
      cancelled = true;
    }

    synchronized void deliver(byte[] message) {
      if (subscriber != null && !cancelled && ended == null) {
        subscriber.onNext(message);
      }
    }

    /** The client half-closed. */
    synchronized void complete() {
      end(Completed.INSTANCE);
    }

    synchronized void fail(Throwable why) {
      end(why);
    }

    private void end(Throwable why) {
      if (ended == null) {
        ended = why;
        if (subscriber != null) {
          signalEnd();
        }
      }
    }

    private void signalEnd() {
      if (cancelled) {
        return;
      }
      cancelled = true;
      if (ended == Completed.INSTANCE) {
        subscriber.onComplete();
      } else {
        subscriber.onError(ended);
      }
    }
  }

  /** Marks a normal end among the failures an inbound stream may end with. */
  private static final class Completed extends Throwable {
    static final Completed INSTANCE = new Completed();

    private Completed() {
      super(null, null, false, false);
    }
  }
}
