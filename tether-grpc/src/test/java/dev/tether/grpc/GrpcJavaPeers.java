package dev.tether.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's own servers on ephemeral ports of 127.0.0.1 and what a test calls them with (Tether
 * channels, their runtime, hostile peers); closing it ends the channels, then the runtime, then the
 * servers, then the rest, so no call outlives the server it reached.
 */
final class GrpcJavaPeers implements AutoCloseable {
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<AutoCloseable> runtimes = new ArrayList<>();
  private final List<Server> servers = new ArrayList<>();
  private final List<AutoCloseable> others = new ArrayList<>();

  /** A started grpc-java server of {@code service}. */
  Server serve(ServerServiceDefinition service) throws IOException {
    Server s =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service)
            .build()
            .start();
    servers.add(s);
    return s;
  }

  /** {@code channel}, shut down first. */
  ManagedChannel channel(ManagedChannel channel) {
    channels.add(channel);
    return channel;
  }

  /** {@code runtime} (a Tether), closed after the channels. */
  <T extends AutoCloseable> T runtime(T runtime) {
    runtimes.add(runtime);
    return runtime;
  }

  /** {@code other} (a hostile peer), closed last. */
  <T extends AutoCloseable> T other(T other) {
    others.add(other);
    return other;
  }

  @Override
  public void close() throws Exception {
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    for (AutoCloseable r : runtimes) {
      r.close();
    }
    for (Server s : servers) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    for (AutoCloseable o : others) {
      o.close();
    }
  }
}
