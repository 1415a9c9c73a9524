package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.protocol.Request;
import java.net.SocketAddress;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;

/** The {@link CallContext} of one request being served. */
final class RequestContext implements CallContext {
  private final Request request;
  private final Peer peer;

  RequestContext(Request request, Peer peer) {
    this.request = request;
    this.peer = peer;
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
