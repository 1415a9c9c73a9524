package dev.tether.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * TCP with TLS in front of Tether's handlers. Either context may be null: a client runtime has
 * only the client one, a server only the server one.
 */
public final class SslTransport extends TcpTransport {
  private final SslContext clientContext;
  private final SslContext serverContext;

  public SslTransport(
      IoFlavor flavor, EventLoopGroup group, SslContext clientContext, SslContext serverContext) {
    super(flavor, group);
    this.clientContext = clientContext;
    this.serverContext = serverContext;
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
    SslContext context = serverSide ? serverContext : clientContext;
    if (context == null) {
      throw new IllegalStateException("TLS is not configured for the " + (serverSide ? "server" : "client"));
    }
    return new ChannelInitializer<Channel>() {
      @Override
      protected void initChannel(Channel ch) {
        if (serverSide) {
          ch.pipeline().addLast("tls", context.newHandler(ch.alloc()));
        } else {
          // The dialled host, so hostname verification and SNI see the name the user gave.
          InetSocketAddress peer = (InetSocketAddress) remote;
          ch.pipeline().addLast("tls", context.newHandler(ch.alloc(), peer.getHostString(), peer.getPort()));
        }
        ch.pipeline().addLast(handler);
      }
    };
  }
}
