package dev.tether.client;

import dev.tether.Endpoint;
import dev.tether.EndpointSelection;
import dev.tether.InvocationMode;
import java.time.Duration;
import java.util.List;

/**
 * Everything a proxy decides about its calls; immutable, one per proxy. {@code withX} methods
 * return a copy with one field changed.
 *
 * @param invocationTimeout how long a call may wait for its answer; null for no limit
 */
public record ProxySettings(
    String identity,
    List<Endpoint> endpoints,
    InvocationMode mode,
    boolean secure,
    boolean preferSecure,
    String connectionId,
    boolean connectionCached,
    EndpointSelection selection,
    Duration invocationTimeout,
    boolean compress) {

  public ProxySettings {
    endpoints = List.copyOf(endpoints);
  }

  public static ProxySettings of(String identity, InvocationMode mode, boolean secure, List<Endpoint> endpoints) {
    return new ProxySettings(
        identity, endpoints, mode, secure, false, "", true, EndpointSelection.RANDOM, null, false);
  }

  public ProxySettings withIdentity(String v) {
    return new ProxySettings(v, endpoints, mode, secure, preferSecure, connectionId, connectionCached, selection, invocationTimeout, compress);
  }

  public ProxySettings withEndpoints(List<Endpoint> v) {
    return new ProxySettings(identity, v, mode, secure, preferSecure, connectionId, connectionCached, selection, invocationTimeout, compress);
  }

  public ProxySettings withMode(InvocationMode v) {
    return new ProxySettings(identity, endpoints, v, secure, preferSecure, connectionId, connectionCached, selection, invocationTimeout, compress);
  }

  public ProxySettings withSecure(boolean v) {
    return new ProxySettings(identity, endpoints, mode, v, preferSecure, connectionId, connectionCached, selection, invocationTimeout, compress);
  }

  public ProxySettings withPreferSecure(boolean v) {
    return new ProxySettings(identity, endpoints, mode, secure, v, connectionId, connectionCached, selection, invocationTimeout, compress);
  }

  public ProxySettings withConnectionId(String v) {
    return new ProxySettings(identity, endpoints, mode, secure, preferSecure, v, connectionCached, selection, invocationTimeout, compress);
  }

  public ProxySettings withConnectionCached(boolean v) {
    return new ProxySettings(identity, endpoints, mode, secure, preferSecure, connectionId, v, selection, invocationTimeout, compress);
  }

  public ProxySettings withSelection(EndpointSelection v) {
    return new ProxySettings(identity, endpoints, mode, secure, preferSecure, connectionId, connectionCached, v, invocationTimeout, compress);
  }

  public ProxySettings withInvocationTimeout(Duration v) {
    return new ProxySettings(identity, endpoints, mode, secure, preferSecure, connectionId, connectionCached, selection, v, compress);
  }

  public ProxySettings withCompress(boolean v) {
    return new ProxySettings(identity, endpoints, mode, secure, preferSecure, connectionId, connectionCached, selection, invocationTimeout, v);
  }
}
