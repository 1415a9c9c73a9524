package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.protocol.Request;
import java.net.SocketAddress;
import java.util.Map;

/** The {@link CallContext} of one request being served. */
final class RequestContext implements CallContext {
  private final Request request;
  private final SocketAddress remote;

  RequestContext(Request request, SocketAddress remote) {
    this.request = request;
    this.remote = remote;
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
    return remote;
  }
}
