package dev.tether.bench;

import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import dev.tether.grpc.TetherGrpc;
import java.util.List;

/**
 * A Tether server serving gRPC (tether-grpc) to the very client that measures gRPC-java's own
 * server ({@link GrpcSystem.GrpcClient}), with the same service definition ({@link
 * GrpcSystem#echoService()}, the streams of {@link GrpcStreams} included): the rows differ in the
 * server only. Settings as {@code grpc}'s: {@code direct} runs the calls' events on the
 * connection's event loop ({@link ExecutionMode#DIRECT}) against a direct-executor client; {@code
 * default} on the server's executor, against gRPC's default client executor. The server also speaks
 * Tether's own protocol on the same port, which the {@code tether} rows measure on a server of
 * their own.
 */
final class TetherGrpcSystems {

  private TetherGrpcSystems() {}

  static List<SystemSpec> specs() {
    return List.of(
        new SystemSpec(
            SystemSpec.TETHER_GRPC,
            "direct",
            () -> new Server(ExecutionMode.DIRECT),
            () -> new GrpcSystem.GrpcClient(true, false)),
        new SystemSpec(
            SystemSpec.TETHER_GRPC,
            "default",
            () -> new Server(ExecutionMode.EXECUTOR),
            () -> new GrpcSystem.GrpcClient(false, false)));
  }

  static final class Server implements BenchServer {
    private final ExecutionMode executionMode;

    /** Non-null once {@link #start()} has run. */
    private TetherServer server;

    Server(ExecutionMode executionMode) {
      this.executionMode = executionMode;
    }

    @Override
    public int start() {
      server =
          TetherGrpc.server()
              .service(GrpcSystem.echoService())
              .configure(
                  TetherServer.builder()
                      .endpoints("tcp -h 127.0.0.1 -p 0")
                      .executionMode(executionMode))
              .build()
              .start();
      return server.endpoints().get(0).port();
    }

    @Override
    public void close() {
      if (server != null) {
        server.close();
      }
    }
  }
}
