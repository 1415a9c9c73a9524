package dev.tether.grpc;

/**
 * The entry to gRPC on Tether: {@link #server()} sets a {@link dev.tether.TetherServer} up to serve
 * gRPC clients on its own stream endpoints, beside Tether's protocol, with grpc-java's service API.
 */
public final class TetherGrpc {
  private TetherGrpc() {}

  /** The gRPC services a Tether server will host; hand them to it with {@code configure}. */
  public static GrpcServices server() {
    return new GrpcServices();
  }
}
