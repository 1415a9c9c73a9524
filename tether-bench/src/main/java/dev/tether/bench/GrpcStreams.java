package dev.tether.bench;

import dev.tether.grpc.TetherGrpc;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * gRPC-java's streams with flow control honoured on every side, as gRPC's own manual flow control
 * example does it: the feed writes only while {@code isReady()} and resumes from its on-ready
 * handler; the echo asks for one inbound message at a time and for the next only while its outbound
 * side is ready; the client's echo sends from its on-ready handler the same way. The client's
 * inbound side keeps the stub's default: it asks for the next message after each one it delivered,
 * under HTTP/2's flow control at gRPC's default window. Executors as the bench's gRPC setting says
 * ({@code direct}: the transport's event loops).
 */
final class GrpcStreams {
  static final MethodDescriptor<byte[], byte[]> FEED =
      method(MethodDescriptor.MethodType.SERVER_STREAMING, "feed");
  static final MethodDescriptor<byte[], byte[]> ECHO =
      method(MethodDescriptor.MethodType.BIDI_STREAMING, "chat");

  /**
   * gRPC's server logs a warning with a stack trace for each stream cancelled while it had writes
   * queued, which every run's end does 1 to 16 times; held here so the setting is not collected.
   */
  private static final java.util.logging.Logger CANCEL_WARNINGS =
      java.util.logging.Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler");

  static {
    CANCEL_WARNINGS.setLevel(java.util.logging.Level.SEVERE);
  }

  private GrpcStreams() {}

  private static MethodDescriptor<byte[], byte[]> method(
      MethodDescriptor.MethodType type, String name) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(GrpcSystem.SERVICE_NAME, name))
        .setRequestMarshaller(TetherGrpc.rawBytes())
        .setResponseMarshaller(TetherGrpc.rawBytes())
        .build();
  }

  /** Adds the two stream methods to the bench's gRPC service. */
  static ServerServiceDefinition.Builder addTo(ServerServiceDefinition.Builder service) {
    return service
        .addMethod(FEED, ServerCalls.asyncServerStreamingCall(GrpcStreams::feed))
        .addMethod(ECHO, ServerCalls.asyncBidiStreamingCall(GrpcStreams::echo));
  }

  private static void feed(byte[] request, StreamObserver<byte[]> responses) {
    ServerCallStreamObserver<byte[]> out = (ServerCallStreamObserver<byte[]>) responses;
    int size = StampedItems.sizeOf(request);
    if (size < StampedItems.MIN_BYTES) {
      out.onError(
          io.grpc.Status.INVALID_ARGUMENT
              .withDescription("items of " + size + " bytes")
              .asRuntimeException());
      return;
    }
    out.setOnCancelHandler(() -> {}); // a cancelled feed stops at its next isCancelled()
    out.setOnReadyHandler(
        () -> {
          while (out.isReady() && !out.isCancelled()) {
            out.onNext(StampedItems.stamped(size));
          }
        });
  }

  private static StreamObserver<byte[]> echo(StreamObserver<byte[]> responses) {
    ServerCallStreamObserver<byte[]> out = (ServerCallStreamObserver<byte[]>) responses;
    out.disableAutoRequest();
    AtomicBoolean wasReady = new AtomicBoolean();
    out.setOnCancelHandler(() -> {});
    out.setOnReadyHandler(
        () -> {
          if (out.isReady() && wasReady.compareAndSet(false, true)) {
            out.request(1);
          }
        });
    return new StreamObserver<>() {
      @Override
      public void onNext(byte[] item) {
        out.onNext(item);
        if (out.isReady()) {
          out.request(1);
        } else {
          wasReady.set(false); // the on-ready handler asks for the next one
        }
      }

      @Override
      public void onError(Throwable cause) {
        // the client cancelled: nothing to answer
      }

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }

  /** One channel, one connection; the streams share it. */
  static final class Client implements StreamClient {
    private final ChannelSource source;

    /** Non-null once {@link #connect} has run. */
    private ManagedChannel channel;

    private CallOptions options = CallOptions.DEFAULT;

    Client(boolean direct) {
      this(ChannelSource.grpcJava(direct));
    }

    Client(ChannelSource source) {
      this.source = source;
    }

    @Override
    public void connect(int port) {
      channel = source.open(port);
      options = source.callOptions();
      ClientCalls.blockingUnaryCall(
          channel, GrpcSystem.ECHO, CallOptions.DEFAULT, new byte[0]); // connect now
    }

    @Override
    public Cancellable feed(int itemBytes, StreamMeter.Sink sink) {
      Metered observer = new Metered(sink, 0);
      ClientCalls.asyncServerStreamingCall(
          channel.newCall(FEED, options), StampedItems.request(itemBytes), observer);
      return observer::cancel;
    }

    @Override
    public Cancellable echo(int itemBytes, StreamMeter.Sink sink) {
      Metered observer = new Metered(sink, itemBytes);
      ClientCalls.asyncBidiStreamingCall(channel.newCall(ECHO, options), observer);
      return observer::cancel;
    }

    @Override
    public void close() {
      GrpcSystem.shutDown(channel);
      source.close();
    }

    @Override
    public String toString() {
      return source.toString();
    }
  }

  /**
   * The client's side of one stream: items to the meter and, for an echo, stamped items out while
   * ready.
   */
  private static final class Metered implements ClientResponseObserver<byte[], byte[]> {
    private final StreamMeter.Sink sink;

    /** Bytes of each item sent; 0 for a feed, which sends nothing. */
    private final int sendBytes;

    private volatile boolean cancelled;
    private volatile ClientCallStreamObserver<byte[]> call;

    Metered(StreamMeter.Sink sink, int sendBytes) {
      this.sink = sink;
      this.sendBytes = sendBytes;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<byte[]> requests) {
      call = requests;
      if (sendBytes > 0) {
        requests.setOnReadyHandler(
            () -> {
              while (requests.isReady() && !cancelled) {
                requests.onNext(StampedItems.stamped(sendBytes));
              }
            });
      }
    }

    @Override
    public void onNext(byte[] item) {
      sink.onItem(item);
    }

    @Override
    public void onError(Throwable cause) {
      if (!cancelled) {
        sink.onError(cause);
      }
    }

    @Override
    public void onCompleted() {
      sink.onError(new IllegalStateException("a stream without end completed"));
    }

    void cancel() {
      cancelled = true;
      ClientCallStreamObserver<byte[]> c = call;
      if (c != null) {
        c.cancel("the run is over", null);
      }
    }
  }
}
