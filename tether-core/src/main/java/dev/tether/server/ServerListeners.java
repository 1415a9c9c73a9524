package dev.tether.server;

import dev.tether.Endpoint;
import dev.tether.transport.LocalTransport;
import dev.tether.transport.Transport;
import dev.tether.transport.TransportSet;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.local.LocalAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The listening sockets of one server: binds each requested endpoint on its transport, reports the
 * endpoints really bound (real ports after {@code -p 0}), tells which one a connection came in on,
 * and closes them. Binding and closing happen on the thread that starts or stops the server.
 */
final class ServerListeners {
  private final List<Endpoint> requested;
  private final TransportSet transports;

  /** Written by bindAll(), which also closes them when it fails; read by the stopping thread. */
  private final List<Channel> listening = new ArrayList<>();

  /** Written by bindAll() while the first connections may already read it on their loops. */
  private final List<Endpoint> bound = new CopyOnWriteArrayList<>();

  ServerListeners(List<Endpoint> requested, TransportSet transports) {
    this.requested = List.copyOf(requested);
    this.transports = transports;
  }

  /** The endpoints asked for, in order. */
  List<Endpoint> requested() {
    return requested;
  }

  /**
   * Binds {@code endpoint}, its accepted channels (or its one datagram channel) set up by the
   * matching initializer.
   *
   * @throws IllegalArgumentException for an unknown transport, or ssl without TLS configured
   */
  void bind(
      Endpoint endpoint,
      ChannelInitializer<Channel> streams,
      ChannelInitializer<Channel> datagrams) {
    Transport t = transports.find(endpoint.transport());
    if (t == null) {
      throw new IllegalArgumentException(
          "cannot listen on "
              + endpoint
              + ": unknown transport, or ssl without TLS configured on the server");
    }
    SocketAddress address = t.address(endpoint.host(), endpoint.port());
    Channel listener =
        t.bind(address, t.isDatagram() ? datagrams : streams).syncUninterruptibly().channel();
    listening.add(listener);
    bound.add(endpoint.withPort(portOf(listener.localAddress())));
  }

  /** The endpoints bound so far, with their real ports. */
  List<Endpoint> bound() {
    return List.copyOf(bound);
  }

  /** The bound endpoint {@code channel} was accepted on, in grammar form; null when unknown. */
  String endpointOf(Channel channel) {
    SocketAddress local = channel.localAddress();
    if (local == null) {
      return null;
    }
    int port = portOf(local);
    for (Endpoint e : bound) {
      if (e.port() == port) {
        return e.toString();
      }
    }
    return null;
  }

  /** Stops accepting on every endpoint; returns once each listener is closed. */
  void closeAll() {
    for (Channel l : listening) {
      l.close().syncUninterruptibly();
    }
  }

  private static int portOf(SocketAddress address) {
    if (address instanceof InetSocketAddress inet) {
      return inet.getPort();
    }
    if (address instanceof LocalAddress) {
      return LocalTransport.portOf(address);
    }
    throw new IllegalStateException("unexpected address " + address);
  }
}
