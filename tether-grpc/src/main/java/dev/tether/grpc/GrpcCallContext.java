package dev.tether.grpc;

import dev.tether.CallContext;
import dev.tether.spi.Ticker;
import dev.tether.spi.VerifiedPeer;
import io.grpc.MethodDescriptor;
import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.ssl.SslHandler;
import java.net.SocketAddress;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A gRPC call as the server's interceptors and call observer see it, as they see Tether's own: the
 * service and method of its path, its text metadata (where a W3C {@code traceparent} arrives), its
 * peer and its deadline. The metadata and the peer's chain are made on first use, since a server
 * without interceptors or observer never asks.
 */
final class GrpcCallContext implements CallContext {
  private final MethodDescriptor<?, ?> method;
  private final Http2Headers headers;
  private final Channel channel;
  private final Ticker ticker;

  /** The deadline on {@link #ticker}; meaningless when {@link #hasDeadline} is false. */
  private final long deadlineNanos;

  private final boolean hasDeadline;

  private volatile Map<String, String> metadata;
  private volatile List<X509Certificate> certificates;

  /**
   * @param timeoutNanos the call's {@code grpc-timeout}, negative for none
   */
  GrpcCallContext(
      MethodDescriptor<?, ?> method,
      Http2Headers headers,
      Channel channel,
      Ticker ticker,
      long timeoutNanos) {
    this.method = method;
    this.headers = headers;
    this.channel = channel;
    this.ticker = ticker;
    this.hasDeadline = timeoutNanos >= 0;
    this.deadlineNanos = hasDeadline ? ticker.nanoTime() + timeoutNanos : 0;
  }

  @Override
  public String service() {
    return method.getServiceName();
  }

  @Override
  public String operation() {
    return method.getBareMethodName();
  }

  @Override
  public boolean isIdempotent() {
    return method.isIdempotent();
  }

  @Override
  public boolean isOneway() {
    return false;
  }

  /** The text headers the client sent (binary {@code -bin} ones and pseudo-headers left out). */
  @Override
  public Map<String, String> metadata() {
    Map<String, String> m = metadata;
    if (m == null) {
      Map<String, String> text = new HashMap<>();
      for (Map.Entry<CharSequence, CharSequence> h : headers) {
        String name = h.getKey().toString();
        if (!name.startsWith(":") && !name.endsWith("-bin")) {
          text.merge(name, h.getValue().toString(), (a, b) -> a + "," + b);
        }
      }
      m = Map.copyOf(text);
      metadata = m;
    }
    return m;
  }

  @Override
  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  @Override
  public List<X509Certificate> peerCertificates() {
    List<X509Certificate> chain = certificates;
    if (chain == null) {
      chain = VerifiedPeer.chainOf(channel.pipeline().get(SslHandler.class));
      certificates = chain;
    }
    return chain;
  }

  @Override
  public Duration timeRemaining() {
    return hasDeadline ? Duration.ofNanos(Math.max(0, deadlineNanos - ticker.nanoTime())) : null;
  }

  @Override
  public String protocol() {
    return GrpcProtocol.NAME;
  }
}
