package dev.tether;

import java.net.SocketAddress;
import java.util.Map;

/** What service code may know about the request it is serving. */
public interface CallContext {
  String service();

  String operation();

  /** True when the caller declared the request idempotent. */
  boolean isIdempotent();

  /** True when the caller waits for no response. */
  boolean isOneway();

  /** String headers sent with the request. */
  Map<String, String> metadata();

  /** The client's address. */
  SocketAddress remoteAddress();
}
