package dev.tether.grpc;

import dev.tether.PermissionDeniedException;
import dev.tether.spi.CodecException;
import dev.tether.spi.WireProtocol;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The server's own Tether services as gRPC services: the path {@code /identity/operation} of a
 * Tether service the server hosts is a unary method whose request and response messages are the
 * payload bytes a Tether client would send and get (what the service's codec reads and writes). A
 * stream of one of its Tether stream services is a streaming method ({@link TetherStreamCall}).
 * Methods registered through grpc-java's API win over a Tether service of the same name, and a
 * Tether service's operations over a stream service's of the same name.
 */
final class TetherMethods {
  private TetherMethods() {}

  /**
   * The method for {@code fullName} ({@code identity/operation}) when the server has that Tether
   * service and it may have that operation; else null. Made per call: a raw service takes any
   * operation name, so a table of them would grow with whatever clients send.
   */
  static ServerMethodDefinition<byte[], byte[]> find(WireProtocol.Host host, String fullName) {
    int slash = fullName.lastIndexOf('/');
    if (slash <= 0 || slash == fullName.length() - 1) {
      return null;
    }
    String name = fullName.substring(0, slash);
    WireProtocol.TetherService service = host.tetherService(name);
    String operation = fullName.substring(slash + 1);
    if (service == null || !service.hasOperation(operation)) {
      return TetherStreamCall.find(host, fullName, name, operation);
    }
    MethodDescriptor<byte[], byte[]> method =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(fullName)
            .setRequestMarshaller(RawBytes.INSTANCE)
            .setResponseMarshaller(RawBytes.INSTANCE)
            .build();
    return ServerMethodDefinition.create(
        method, (call, headers) -> new UnaryCall(service, operation, call));
  }

  /** One unary call of a Tether operation: one request message in, one answer out. */
  private static final class UnaryCall extends ServerCall.Listener<byte[]> {
    private final WireProtocol.TetherService service;
    private final String operation;
    private final ServerCall<byte[], byte[]> call;
    private byte[] request;

    UnaryCall(
        WireProtocol.TetherService service, String operation, ServerCall<byte[], byte[]> call) {
      this.service = service;
      this.operation = operation;
      this.call = call;
      // Two, so that a second request message is seen and refused rather than left waiting.
      call.request(2);
    }

    @Override
    public void onMessage(byte[] message) {
      if (request != null) {
        fail(Status.INTERNAL.withDescription("a unary call got more than one request message"));
        return;
      }
      request = message;
    }

    @Override
    public void onHalfClose() {
      if (request == null) {
        fail(Status.INTERNAL.withDescription("a unary call got no request message"));
        return;
      }
      Object result;
      try {
        result = service.call(operation, request, GrpcServerCall.CALL.get());
      } catch (Throwable t) {
        fail(statusOf(t));
        return;
      }
      if (result instanceof CompletionStage<?> stage) {
        stage.whenComplete(
            (value, failure) -> {
              if (failure != null) {
                fail(statusOf(unwrap(failure)));
              } else {
                answer((byte[]) value);
              }
            });
      } else {
        answer((byte[]) result);
      }
    }

    private void answer(byte[] response) {
      call.sendHeaders(new Metadata());
      call.sendMessage(response == null ? new byte[0] : response);
      call.close(Status.OK, new Metadata());
    }

    private void fail(Status status) {
      call.close(status, new Metadata());
    }
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  /**
   * How a Tether service's failure reaches a gRPC client: refused as PERMISSION_DENIED, a payload
   * the codec cannot read (or a result it cannot write) as INTERNAL, anything else the service
   * threw as UNKNOWN with its type and message, as a Tether client would read them.
   */
  static Status statusOf(Throwable t) {
    if (t instanceof PermissionDeniedException) {
      return Status.PERMISSION_DENIED.withDescription(t.getMessage());
    }
    String what = t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    return (t instanceof CodecException ? Status.INTERNAL : Status.UNKNOWN).withDescription(what);
  }
}
