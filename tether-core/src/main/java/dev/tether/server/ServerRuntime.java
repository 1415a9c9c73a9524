package dev.tether.server;

import dev.tether.Endpoint;
import dev.tether.protocol.DatagramFrameDecoder;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.FrameEncoder;
import dev.tether.protocol.Welcome;
import dev.tether.transport.LocalTransport;
import dev.tether.transport.Transport;
import dev.tether.transport.TransportSet;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.local.LocalAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * The machinery behind a {@code TetherServer}: listeners on every endpoint, the live
 * connections, dispatch, and the two ways to stop (graceful drain, or at once).
 */
public final class ServerRuntime {
  private final List<Endpoint> requested;
  private final TransportSet transports;
  private final Dispatcher dispatcher;
  private final Supplier<Welcome> welcome;
  private final int maxFrameSize;
  private final Duration readerIdle;
  /** Non-null only when the runtime created the executor and so must stop it. */
  private final ExecutorService ownedExecutor;
  private final List<Channel> listeners = new ArrayList<>();
  private final List<Endpoint> bound = new ArrayList<>();
  private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
  private volatile boolean shuttingDown;
  private boolean closed;

  public ServerRuntime(
      List<Endpoint> endpoints,
      TransportSet transports,
      Dispatcher dispatcher,
      Supplier<Welcome> welcome,
      int maxFrameSize,
      Duration readerIdle,
      ExecutorService ownedExecutor) {
    this.requested = List.copyOf(endpoints);
    this.transports = transports;
    this.dispatcher = dispatcher;
    this.welcome = welcome;
    this.maxFrameSize = maxFrameSize;
    this.readerIdle = readerIdle;
    this.ownedExecutor = ownedExecutor;
  }

  /**
   * Binds every endpoint; on failure unbinds what was bound, frees the threads and throws a
   * TetherException naming the endpoint.
   */
  public void start() {
    for (Endpoint e : requested) {
      try {
        bind(e);
      } catch (Throwable failure) {
        // Netty rethrows bind errors as undeclared checked exceptions: catch them all.
        close();
        if (failure instanceof IllegalArgumentException iae) {
          throw iae;
        }
        throw new dev.tether.TetherException("cannot listen on " + e + ": " + failure.getMessage(), failure);
      }
    }
  }

  private void bind(Endpoint e) {
    Transport t = transports.find(e.transport());
    if (t == null) {
      throw new IllegalArgumentException(
          "cannot listen on " + e + ": unknown transport, or ssl without TLS configured on the server");
    }
    SocketAddress address = t.address(e.host(), e.port());
    Channel listener = t.bind(address, t.isDatagram() ? datagramPipeline() : streamPipeline())
        .syncUninterruptibly().channel();
    listeners.add(listener);
    bound.add(e.withPort(portOf(listener.localAddress())));
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

  private ChannelInitializer<Channel> streamPipeline() {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        ServerConnection connection = new ServerConnection(ServerRuntime.this, ch);
        if (readerIdle.toNanos() > 0) {
          ch.pipeline().addLast("reader-idle", new IdleStateHandler(readerIdle.toNanos(), 0, 0, TimeUnit.NANOSECONDS));
        }
        ch.pipeline()
            .addLast("frame-decoder", new FrameDecoder(FrameDecoder.Side.SERVER, maxFrameSize))
            .addLast("frame-encoder", FrameEncoder.INSTANCE)
            .addLast("connection", connection);
        connections.add(connection);
        if (shuttingDown) {
          ch.close();
        }
      }
    };
  }

  private ChannelInitializer<Channel> datagramPipeline() {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        ch.pipeline()
            .addLast("datagram-decoder", new DatagramFrameDecoder())
            .addLast("datagrams", new DatagramServerHandler(dispatcher));
      }
    };
  }

  public List<Endpoint> boundEndpoints() {
    return List.copyOf(bound);
  }

  Dispatcher dispatcher() {
    return dispatcher;
  }

  Welcome welcome() {
    return welcome.get();
  }

  /** How many stream connections are open now. */
  public int connectionCount() {
    return connections.size();
  }

  void connectionClosed(ServerConnection c) {
    connections.remove(c);
  }

  /**
   * A draining connection finished its accepted work. The client closes it once it has read every
   * answer; closing here would risk a reset that discards answers still in flight, so the server
   * only closes at the grace deadline.
   */
  void connectionDrained(ServerConnection c) {
    // Nothing to do now: the client's close ends the connection.
  }

  /**
   * Stops accepting, sends GOAWAY on every connection, lets accepted requests finish and clients
   * close, and closes whatever is left at the deadline. Then frees the threads.
   */
  public void shutdownGracefully(Duration grace) {
    shuttingDown = true;
    closeListeners();
    List<ServerConnection> open = new ArrayList<>(connections);
    CountDownLatch closed = new CountDownLatch(open.size());
    for (ServerConnection c : open) {
      c.channel().closeFuture().addListener(f -> closed.countDown());
      c.beginDrain();
    }
    try {
      closed.await(grace.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    close();
  }

  /** Closes every listener and connection at once, without draining, and frees the threads. */
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    shuttingDown = true;
    closeListeners();
    for (ServerConnection c : new ArrayList<>(connections)) {
      c.channel().close();
    }
    if (ownedExecutor != null) {
      ownedExecutor.shutdownNow();
    }
    transports.shutdown().syncUninterruptibly();
  }

  private void closeListeners() {
    for (Channel l : listeners) {
      l.close().syncUninterruptibly();
    }
  }
}
