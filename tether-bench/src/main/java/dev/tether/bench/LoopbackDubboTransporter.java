package dev.tether.bench;

import java.net.InetSocketAddress;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.Client;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.RemotingServer;
import org.apache.dubbo.remoting.transport.netty4.NettyClient;
import org.apache.dubbo.remoting.transport.netty4.NettyServer;
import org.apache.dubbo.remoting.transport.netty4.NettyTransporter;

/**
 * Dubbo's own netty4 transporter, except that it stays on 127.0.0.1: Dubbo treats every 127.x
 * address as "no host given", so its server binds all interfaces and its client dials the machine's
 * first non-loopback address instead, while the benchmark keeps to loopback. Registered as Dubbo
 * extension {@code loopback} ({@code META-INF/dubbo/org.apache.dubbo.remoting.Transporter});
 * nothing else differs.
 */
public final class LoopbackDubboTransporter extends NettyTransporter {

  /** The extension's name, for {@code ProtocolConfig#setServer}. */
  static final String NAME = "loopback";

  @Override
  public RemotingServer bind(URL url, ChannelHandler handler) throws RemotingException {
    return new LoopbackNettyServer(url, handler);
  }

  @Override
  public Client connect(URL url, ChannelHandler handler) throws RemotingException {
    return new LoopbackNettyClient(url, handler);
  }

  private static final class LoopbackNettyServer extends NettyServer {
    LoopbackNettyServer(URL url, ChannelHandler handler) throws RemotingException {
      super(url, handler);
    }

    /** Called from the superclass constructor: reads only the superclass's state. */
    @Override
    public InetSocketAddress getBindAddress() {
      return new InetSocketAddress("127.0.0.1", super.getBindAddress().getPort());
    }
  }

  private static final class LoopbackNettyClient extends NettyClient {
    LoopbackNettyClient(URL url, ChannelHandler handler) throws RemotingException {
      super(url, handler);
    }

    /**
     * The URL's own host, not Dubbo's replacement of a loopback one; called from the superclass
     * constructor.
     */
    @Override
    public InetSocketAddress getConnectAddress() {
      return new InetSocketAddress(getUrl().getHost(), getUrl().getPort());
    }
  }
}
