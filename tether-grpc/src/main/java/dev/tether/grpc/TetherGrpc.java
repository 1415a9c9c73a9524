package dev.tether.grpc;

import dev.tether.Proxy;
import dev.tether.grpc.client.TetherChannel;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import java.time.Duration;

/**
 * The entry to gRPC on Tether: {@link #server()} sets a {@link dev.tether.TetherServer} up to serve
 * gRPC clients on its own stream endpoints, beside Tether's protocol, with grpc-java's service API;
 * {@link #channel(Proxy)} calls gRPC servers through a Tether proxy's connection management.
 */
public final class TetherGrpc {
  private TetherGrpc() {}

  /** The gRPC services a Tether server will host; hand them to it with {@code configure}. */
  public static GrpcServices server() {
    return new GrpcServices();
  }

  /**
   * A grpc-java channel whose calls {@code proxy} places (its endpoints, selection, balancing,
   * connections, retries by the at-most-once rule), over connections of the proxy's runtime that
   * speak gRPC. Generated stubs, {@code ClientCall}s and interceptors work on it as on grpc-java's
   * own; its {@code shutdown()} drains its calls and leaves the runtime open.
   */
  public static ManagedChannel channel(Proxy proxy) {
    return TetherChannel.over(proxy);
  }

  /**
   * As {@link #channel(Proxy)}, and its connections prove their servers alive while calls are open
   * (gRFC A8 keepalive): a PING after {@code keepaliveTime} without reads, the server dead when the
   * answer takes longer than {@code keepaliveTimeout}. Keep the time at or above what the servers
   * permit (grpc-java's default: 5 minutes); one that answers "too_many_pings" doubles it.
   */
  public static ManagedChannel channel(
      Proxy proxy, Duration keepaliveTime, Duration keepaliveTimeout) {
    return TetherChannel.over(proxy, keepaliveTime, keepaliveTimeout);
  }

  /**
   * The marshaller of messages as raw bytes: a message is its bytes as they are, both ways (no copy
   * on the way out; an unreadable stream fails the call with INTERNAL). One shared, stateless
   * instance, for hand-built {@code MethodDescriptor<byte[], byte[]>}s.
   */
  public static MethodDescriptor.Marshaller<byte[]> rawBytes() {
    return RawBytes.INSTANCE;
  }
}
