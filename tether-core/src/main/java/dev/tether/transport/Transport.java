package dev.tether.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.WriteBufferWaterMark;
import java.net.SocketAddress;
import java.time.Duration;

/**
 * One way of carrying frames between two processes (tcp, ssl, udp, local). A transport opens client
 * channels and binds server channels; the handler given to it is installed after the transport's
 * own handlers (TLS, for instance), so Tether's pipeline sees frames' bytes.
 */
public interface Transport {
  /**
   * Every stream channel turns unwritable once 1 MiB waits to be sent and writable again below 512
   * KiB: the client then holds new calls back, the server stops reading new requests.
   */
  WriteBufferWaterMark WRITE_BUFFER_WATER_MARK = new WriteBufferWaterMark(512 * 1024, 1024 * 1024);

  /** The name used in endpoint strings, e.g. "tcp". */
  String name();

  /** True when traffic is encrypted and the peer authenticated. */
  boolean isSecure();

  /** True for message-oriented transports without a handshake (oneway only). */
  boolean isDatagram();

  /** The socket address for a resolved host and port on this transport. */
  SocketAddress address(String host, int port);

  /**
   * Opens a client channel to {@code remote}. The future completes when the transport-level
   * connection exists (TCP connected), not when Tether's handshake is done.
   */
  ChannelFuture connect(SocketAddress remote, Duration connectTimeout, ChannelHandler handler);

  /** Binds a listener; {@code childHandler} is installed on every accepted channel. */
  ChannelFuture bind(SocketAddress local, ChannelHandler childHandler);

  /** The local address a bound channel really listens on (the real port after {@code -p 0}). */
  default SocketAddress boundAddress(Channel listener) {
    return listener.localAddress();
  }
}
