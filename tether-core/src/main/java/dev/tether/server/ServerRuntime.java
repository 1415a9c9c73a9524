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
  private final dev.tether.internal.EventBus events;
  /** Requests served by connections that have closed; open ones count their own. */
  private final java.util.concurrent.atomic.LongAdder servedByClosed = new java.util.concurrent.atomic.LongAdder();
  private volatile Lifecycle lifecycle = Lifecycle.RUNNING;

  /** The life of a server. */
  enum Lifecycle { RUNNING, DRAINING, CLOSED }

  public ServerRuntime(
      List<Endpoint> endpoints,
      TransportSet transports,
      Dispatcher dispatcher,
      Supplier<Welcome> welcome,
      int maxFrameSize,
      Duration readerIdle,
      ExecutorService ownedExecutor,
      dev.tether.internal.EventBus events) {
    this.events = events;
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
        if (lifecycle != Lifecycle.RUNNING) {
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

  void connectionClosed(ServerConnection c, long served) {
    servedByClosed.add(served);
    connections.remove(c);
  }

  /** Emits a server event about one connection; its endpoint is the listening endpoint it came in on. */
  void emit(dev.tether.observe.TetherEvent.Kind kind, Channel channel, String detail, Throwable cause) {
    if (events.isOn()) {
      events.emit(kind, endpointOf(channel), detail + " (client " + channel.remoteAddress() + ")", cause);
    }
  }

  private String endpointOf(Channel channel) {
    SocketAddress local = channel.localAddress();
    if (local == null) {
      return null;
    }
    int port = portOf(local);
    for (Endpoint e : List.copyOf(bound)) {
      if (e.port() == port) {
        return e.toString();
      }
    }
    return null;
  }

  /**
   * A snapshot gathered on each connection's own loop, so it reads what the loop owns without
   * locks; a connection whose loop does not answer within a second is left out.
   */
  public dev.tether.observe.ServerStatus status() {
    List<ServerConnection> open = new ArrayList<>(connections);
    List<java.util.concurrent.CompletableFuture<long[]>> counts = new ArrayList<>(open.size());
    for (ServerConnection c : open) {
      java.util.concurrent.CompletableFuture<long[]> f = new java.util.concurrent.CompletableFuture<>();
      if (c.channel().eventLoop().inEventLoop()) {
        f.complete(new long[] {c.inFlight(), c.served()});
      } else {
        try {
          c.channel().eventLoop().execute(() -> f.complete(new long[] {c.inFlight(), c.served()}));
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
          f.complete(new long[] {0, 0});
        }
      }
      counts.add(f);
    }
    long inFlight = 0;
    long served = servedByClosed.sum();
    for (java.util.concurrent.CompletableFuture<long[]> f : counts) {
      try {
        long[] v = f.get(1, TimeUnit.SECONDS);
        inFlight += v[0];
        served += v[1];
      } catch (Exception notAnswered) {
        // A closing or stuck loop: its counts are missing from this snapshot.
      }
    }
    return new dev.tether.observe.ServerStatus(lifecycle.name(), open.size(), (int) inFlight, served);
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
    synchronized (this) {
      if (lifecycle != Lifecycle.RUNNING) {
        return;
      }
      lifecycle = Lifecycle.DRAINING;
    }
    closeListeners();
    List<ServerConnection> open = new ArrayList<>(connections);
    CountDownLatch closed = new CountDownLatch(open.size());
    for (ServerConnection c : open) {
      c.channel().closeFuture().addListener(f -> closed.countDown());
      c.beginDrain();
    }
    try {
      boolean all = closed.await(grace.toNanos(), TimeUnit.NANOSECONDS);
      events.emit(dev.tether.observe.TetherEvent.Kind.DRAINED, null, all
          ? "every connection closed after draining (" + open.size() + ")"
          : closed.getCount() + " of " + open.size() + " connections still open at the grace deadline; closing them", null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    close();
  }

  /** Closes every listener and connection at once, without draining, and frees the threads. */
  public synchronized void close() {
    if (lifecycle == Lifecycle.CLOSED) {
      return;
    }
    lifecycle = Lifecycle.CLOSED;
    closeListeners();
    for (ServerConnection c : new ArrayList<>(connections)) {
      c.channel().close();
    }
    if (ownedExecutor != null) {
      ownedExecutor.shutdownNow();
    }
    transports.shutdown().syncUninterruptibly();
    events.close();
  }

  private void closeListeners() {
    for (Channel l : listeners) {
      l.close().syncUninterruptibly();
    }
  }
}
