package dev.tether.grpc;

import dev.tether.spi.WireProtocol;
import io.grpc.ServerMethodDefinition;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2CodecUtil;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * gRPC as a second protocol of a Tether server: a connection that opens with the HTTP/2 client
 * preface gets an HTTP/2 connection handler that serves the registered methods.
 */
final class GrpcProtocol implements WireProtocol {
  /** The protocol's name in status snapshots, meters, spans and events. */
  static final String NAME = "grpc";

  private static final byte[] PREFACE = ByteBufUtil.getBytes(Http2CodecUtil.connectionPrefaceBuf());

  private final Map<String, ServerMethodDefinition<?, ?>> methods;
  private final int maxInboundMessageSize;
  private final int maxInboundMetadataSize;
  private final long maxInboundBytesPerConnection;
  private final long maxOutboundBytesPerConnection;
  private final long outboundStallNanos;
  private final PingPolicy.Permit pings;

  /** Follows the server's life (health, when asked for). */
  private final Life life;

  /** What follows the server's life as its gRPC connections see it; any thread. */
  interface Life {
    /** Follows nothing. */
    Life NONE =
        new Life() {
          @Override
          public void serving(WireProtocol.Host server) {}

          @Override
          public void draining() {}
        };

    /** A connection is about to be served by {@code server}: before its first request is read. */
    void serving(WireProtocol.Host server);

    /** The server's drain begins, before any connection hears of it. */
    void draining();
  }

  GrpcProtocol(
      Map<String, ServerMethodDefinition<?, ?>> methods,
      int maxInboundMessageSize,
      int maxInboundMetadataSize,
      long maxInboundBytesPerConnection,
      long maxOutboundBytesPerConnection,
      long outboundStallNanos,
      PingPolicy.Permit pings,
      Life life) {
    this.pings = pings;
    this.methods = methods;
    this.maxInboundMessageSize = maxInboundMessageSize;
    this.maxInboundMetadataSize = maxInboundMetadataSize;
    this.maxInboundBytesPerConnection = maxInboundBytesPerConnection;
    this.maxOutboundBytesPerConnection = maxOutboundBytesPerConnection;
    this.outboundStallNanos = outboundStallNanos;
    this.life = life;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** HTTP/2's ALPN name: under TLS, gRPC clients ask for it and get this protocol. */
  @Override
  public String applicationProtocol() {
    return "h2";
  }

  @Override
  public byte[] preface() {
    return PREFACE.clone();
  }

  /** The open connections, so a drain reaches them; each leaves as its channel closes. */
  private final Set<GrpcConnection> open = ConcurrentHashMap.newKeySet();

  @Override
  public void serve(Channel channel, Host server) {
    life.serving(server);
    GrpcConnection connection =
        new GrpcConnection.Builder(methods, maxInboundMessageSize, server, server.admit(channel))
            .maxHeaderListSize(maxInboundMetadataSize)
            .maxInboundBytes(maxInboundBytesPerConnection)
            .maxOutboundBytes(maxOutboundBytesPerConnection, outboundStallNanos)
            .pings(pings)
            .build();
    open.add(connection);
    channel.closeFuture().addListener(closed -> open.remove(connection));
    channel.pipeline().addLast("grpc", connection);
  }

  /** The request bytes the open connections' calls hold now, over all of them. */
  long inboundBytesHeld() {
    return open.stream().mapToLong(c -> c.inboundBudget().held()).sum();
  }

  /** The most request bytes any one connection open now has held at once. */
  long inboundBytesPeakPerConnection() {
    return open.stream().mapToLong(c -> c.inboundBudget().peak()).max().orElse(0);
  }

  /** The response bytes the open connections' calls hold now, over all of them. */
  long outboundBytesHeld() {
    return open.stream().mapToLong(c -> c.outboundBudget().held()).sum();
  }

  /** The sends of the open connections' calls that wait for room in their budget now. */
  int outboundSendsWaiting() {
    return open.stream().mapToInt(c -> c.outboundBudget().waiting()).sum();
  }

  /** The most response bytes any one connection open now has held at once. */
  long outboundBytesPeakPerConnection() {
    return open.stream().mapToLong(c -> c.outboundBudget().peak()).max().orElse(0);
  }

  /** gRPC's graceful shutdown on every open connection; completes when all have closed. */
  @Override
  public CompletableFuture<Void> drain() {
    life.draining();
    return CompletableFuture.allOf(
        open.stream().map(GrpcConnection::drain).toArray(CompletableFuture[]::new));
  }
}
