package dev.tether.grpc;

import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A started Tether server serving gRPC on an ephemeral port of 127.0.0.1, and a plaintext grpc-java
 * channel to it; closing it shuts the channel down, then closes the server.
 */
final class TetherGrpcServerFixture implements AutoCloseable {
  private final TetherServer server;
  private final ManagedChannel channel;

  private TetherGrpcServerFixture(TetherServer server, ManagedChannel channel) {
    this.server = server;
    this.channel = channel;
  }

  /** {@code services} on a server with no other settings. */
  static TetherGrpcServerFixture start(GrpcServices services) {
    return start(services, TetherServer.builder());
  }

  /** {@code services} on a server set up by {@code server}, to which this adds the endpoint. */
  static TetherGrpcServerFixture start(GrpcServices services, TetherServer.Builder server) {
    return start(services, server, channel -> channel);
  }

  /**
   * As {@link #start(GrpcServices, TetherServer.Builder)}, the channel set up by {@code channel}.
   */
  static TetherGrpcServerFixture start(
      GrpcServices services,
      TetherServer.Builder server,
      UnaryOperator<ManagedChannelBuilder<?>> channel) {
    TetherServer started =
        services.configure(server.endpoints("tcp -h 127.0.0.1 -p 0")).build().start();
    int port = started.endpoints().get(0).port();
    return new TetherGrpcServerFixture(
        started,
        channel.apply(ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext()).build());
  }

  /** {@code services} alone on a started server on 127.0.0.1 whose calls run in {@code mode}. */
  static TetherServer serve(GrpcServices services, ExecutionMode mode) {
    return services
        .configure(TetherServer.builder().endpoints("tcp -h 127.0.0.1 -p 0").executionMode(mode))
        .build()
        .start();
  }

  TetherServer server() {
    return server;
  }

  ManagedChannel channel() {
    return channel;
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }
}
