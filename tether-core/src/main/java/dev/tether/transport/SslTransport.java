package dev.tether.transport;

import dev.tether.spi.Scheduler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicReference;

/**
 * TCP with TLS in front of Tether's handlers. Either context may be null: a client runtime has only
 * the client one, a server only the server one. {@link #reload} swaps a context: connections opened
 * from then on use the new one, open ones keep the one they shook hands with.
 */
public final class SslTransport extends TcpTransport {
  /** Swapped whole by reload, read once per new connection; null for the side not configured. */
  private final AtomicReference<SslContext> clientContext;

  private final AtomicReference<SslContext> serverContext;

  public SslTransport(
      IoFlavor flavor,
      EventLoopGroup group,
      Scheduler timers,
      SslContext clientContext,
      SslContext serverContext) {
    super(flavor, group, timers);
    this.clientContext = new AtomicReference<>(clientContext);
    this.serverContext = new AtomicReference<>(serverContext);
  }

  /**
   * New connections of that side use {@code next}; a client context when {@code next.isClient()}.
   *
   * @throws IllegalArgumentException naming the file when {@code next}'s chain stops below a
   *     certificate the one in use sends (a chain file read half written); the one in use stays
   */
  public void reload(SslContext next) {
    AtomicReference<SslContext> side = next.isClient() ? clientContext : serverContext;
    ChainCompleteness.requireContinues(side.get(), next);
    side.set(next);
  }

  @Override
  public String name() {
    return "ssl";
  }

  @Override
  public boolean isSecure() {
    return true;
  }

  @Override
  protected ChannelHandler wrap(ChannelHandler handler, SocketAddress remote) {
    boolean serverSide = remote == null;
    AtomicReference<SslContext> current = serverSide ? serverContext : clientContext;
    if (current.get() == null) {
      throw new IllegalStateException(
          "TLS is not configured for the " + (serverSide ? "server" : "client"));
    }
    return new ChannelInitializer<Channel>() {
      @Override
      protected void initChannel(Channel ch) {
        // Read per connection, not per listener: a reload applies to the next accepted socket.
        SslContext context = current.get();
        if (serverSide) {
          SslHandler tls = context.newHandler(ch.alloc());
          // The server's own handshake deadline (tether.server.handshakeTimeout) covers TLS and
          // HELLO on the injected clock; a second timer on Netty's clock would race it.
          tls.setHandshakeTimeoutMillis(0);
          ch.pipeline().addLast("tls", tls);
        } else {
          // The dialled host, so hostname verification and SNI see the name the user gave.
          InetSocketAddress peer = (InetSocketAddress) remote;
          SslHandler tls = context.newHandler(ch.alloc(), peer.getHostString(), peer.getPort());
          // The connection's handshake deadline covers TLS and HELLO on the runtime's clock.
          tls.setHandshakeTimeoutMillis(0);
          ch.pipeline().addLast("tls", tls);
        }
        ch.pipeline().addLast(handler);
      }
    };
  }
}
