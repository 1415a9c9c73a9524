package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.protocol.Request;
import dev.tether.spi.Ticker;
import java.net.SocketAddress;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The {@link CallContext} of one request being served. */
final class RequestContext implements CallContext {
  private final Request request;
  private final Peer peer;

  /** The caller's deadline on {@link #ticker}, 0 when it set none. */
  private final long deadlineNanos;

  private final Ticker ticker;

  RequestContext(Request request, Peer peer, long deadlineNanos, Ticker ticker) {
    this.request = request;
    this.peer = peer;
    this.deadlineNanos = deadlineNanos;
    this.ticker = ticker;
  }

  @Override
  public Duration timeRemaining() {
    return deadlineNanos == 0
        ? null
        : Duration.ofNanos(Math.max(0, deadlineNanos - ticker.nanoTime()));
  }

  long deadlineNanos() {
    return deadlineNanos;
  }

  @Override
  public String service() {
    return request.service();
  }

  @Override
  public String operation() {
    return request.operation();
  }

  @Override
  public boolean isIdempotent() {
    return request.isIdempotent();
  }

  @Override
  public boolean isOneway() {
    return request.isOneway();
  }

  @Override
  public Map<String, String> metadata() {
    return request.metadata();
  }

  @Override
  public SocketAddress remoteAddress() {
    return peer.address();
  }

  @Override
  public List<X509Certificate> peerCertificates() {
    return peer.certificates();
  }
}
