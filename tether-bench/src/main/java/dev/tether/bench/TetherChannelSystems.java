package dev.tether.bench;

import dev.tether.ExecutionMode;
import dev.tether.Tether;
import dev.tether.grpc.TetherGrpc;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import java.util.List;

/**
 * Tether's gRPC channel ({@code TetherGrpc.channel(proxy)}: a Tether proxy places each call on
 * connections its runtime owns) as the client, with the very calls and method descriptors
 * gRPC-java's client makes ({@link GrpcSystem.GrpcClient}), against gRPC-java's own server ({@code
 * tchan>grpc}) and against a Tether server serving gRPC ({@code tchan>tether-grpc}). With {@code
 * grpc} and {@code tether-grpc} they make the 2 x 2 of client {gRPC-java channel, Tether channel} x
 * server {gRPC-java, Tether}. Settings as {@code grpc}'s: {@code default} runs the listeners on the
 * channel's own executor against a server on its default executor; {@code direct} runs them on the
 * thread that completes the call ({@code CallOptions.withExecutor}) against a server running its
 * calls on the event loop.
 */
final class TetherChannelSystems {

  private TetherChannelSystems() {}

  static List<SystemSpec> specs() {
    String toGrpc = "Tether's gRPC channel -> gRPC-java's server";
    String toTether = "Tether's gRPC channel -> a Tether server speaking gRPC";
    return List.of(
        new SystemSpec(
            SystemSpec.TETHER_CHANNEL_TO_GRPC,
            "direct",
            () -> new GrpcSystem.GrpcServer(true),
            () -> new GrpcSystem.GrpcClient(new Source(true), false),
            toGrpc + ", both direct"),
        new SystemSpec(
            SystemSpec.TETHER_CHANNEL_TO_GRPC,
            "default",
            () -> new GrpcSystem.GrpcServer(false),
            () -> new GrpcSystem.GrpcClient(new Source(false), false),
            toGrpc + ", default executors"),
        new SystemSpec(
            SystemSpec.TETHER_CHANNEL_TO_TETHER_GRPC,
            "direct",
            () -> new TetherGrpcSystems.Server(ExecutionMode.DIRECT),
            () -> new GrpcSystem.GrpcClient(new Source(true), false),
            toTether + ", both direct"),
        new SystemSpec(
            SystemSpec.TETHER_CHANNEL_TO_TETHER_GRPC,
            "default",
            () -> new TetherGrpcSystems.Server(ExecutionMode.EXECUTOR),
            () -> new GrpcSystem.GrpcClient(new Source(false), false),
            toTether + ", default executors"));
  }

  /** A runtime of its own per client, and a channel over one proxy of it. */
  static final class Source implements ChannelSource {
    private final boolean direct;

    /** Non-null once {@link #open} has run. */
    private Tether tether;

    Source(boolean direct) {
      this.direct = direct;
    }

    @Override
    public ManagedChannel open(int port) {
      tether = Tether.create();
      return TetherGrpc.channel(tether.proxy("bench:tcp -h 127.0.0.1 -p " + port));
    }

    @Override
    public CallOptions callOptions() {
      return direct ? CallOptions.DEFAULT.withExecutor(Runnable::run) : CallOptions.DEFAULT;
    }

    @Override
    public void close() {
      if (tether != null) {
        tether.close();
      }
    }

    @Override
    public String toString() {
      return "tchan " + (direct ? "direct" : "default");
    }
  }
}
