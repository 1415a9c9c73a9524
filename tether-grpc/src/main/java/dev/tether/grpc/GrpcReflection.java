package dev.tether.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.InternalServer;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.services.ProtoReflectionService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code grpc.reflection.v1} and {@code v1alpha} (grpcurl and Postman ask one, then the other):
 * grpc-java's own implementations, which read the hosted services from the io.grpc {@link Server}
 * in their call's context. No grpc-java server runs here, so a stand-in that knows only the hosted
 * services is put there for them. Services with protobuf descriptors are listed and described;
 * others (built by hand, without a .proto) are not, as with grpc-java's own server. Kept apart so
 * that only an application that asks for it needs grpc-services.
 */
final class GrpcReflection {
  private volatile List<ServerServiceDefinition> hosted = List.of();

  private final Server standIn =
      new Server() {
        @Override
        public Server start() {
          throw new UnsupportedOperationException("a stand-in for reflection");
        }

        @Override
        public List<ServerServiceDefinition> getServices() {
          return hosted;
        }

        @Override
        public List<ServerServiceDefinition> getImmutableServices() {
          return hosted;
        }

        @Override
        public List<ServerServiceDefinition> getMutableServices() {
          return List.of();
        }

        @Override
        public Server shutdown() {
          return this;
        }

        @Override
        public Server shutdownNow() {
          return this;
        }

        @Override
        public boolean isShutdown() {
          return false;
        }

        @Override
        public boolean isTerminated() {
          return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
          return false;
        }

        @Override
        public void awaitTermination() {
          throw new UnsupportedOperationException("a stand-in for reflection");
        }
      };

  private final ServerInterceptor withServer =
      new ServerInterceptor() {
        @Override
        public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
            ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
          Context c = Context.current().withValue(InternalServer.SERVER_CONTEXT_KEY, standIn);
          return Contexts.interceptCall(c, call, headers, next);
        }
      };

  ServerServiceDefinition v1() {
    return ServerInterceptors.intercept(ProtoReflectionServiceV1.newInstance(), withServer);
  }

  /** The older name of the same service, which some tools still ask first. */
  @SuppressWarnings("deprecation")
  ServerServiceDefinition v1alpha() {
    return ServerInterceptors.intercept(ProtoReflectionService.newInstance(), withServer);
  }

  /** The services the server hosts, reflection's own included. */
  void hosting(List<ServerServiceDefinition> services) {
    hosted = List.copyOf(services);
  }
}
