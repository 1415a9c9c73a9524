package dev.tether.bench;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.InetSocketAddress;

/**
 * Where a bench gRPC client gets its channel: grpc-java's own ({@link #grpcJava}) or a Tether
 * proxy's ({@link TetherChannelSystems}), so one client measures both channels against any server
 * that speaks gRPC. The client shuts the channel down; {@link #close()} then closes whatever the
 * source opened beside it.
 */
interface ChannelSource {

  /** A new channel to the server on 127.0.0.1 at {@code port}. */
  ManagedChannel open(int port);

  /** The options every call is made with (where its listener runs). */
  CallOptions callOptions();

  /** Closes what {@link #open} opened beside the channel; safe to call twice. */
  void close();

  /**
   * grpc-java's Netty channel over plaintext; {@code direct}: its callbacks on the transport's
   * event loop ({@code directExecutor()}), else on gRPC's default executor.
   */
  static ChannelSource grpcJava(boolean direct) {
    return new ChannelSource() {
      @Override
      public ManagedChannel open(int port) {
        NettyChannelBuilder builder =
            NettyChannelBuilder.forAddress(new InetSocketAddress("127.0.0.1", port)).usePlaintext();
        if (direct) {
          builder.directExecutor();
        }
        return builder.build();
      }

      @Override
      public CallOptions callOptions() {
        return CallOptions.DEFAULT;
      }

      @Override
      public void close() {
        // the channel is all it opened
      }

      @Override
      public String toString() {
        return "grpc " + (direct ? "direct" : "default");
      }
    };
  }
}
