package dev.tether.testkit;

import dev.tether.testing.StablePorts;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on loopback to put between a client and a server, whose behaviour tests change while
 * connections are open: it simulates a slow link, a frozen network, a server restart, a node that
 * is down, a connection lost in the middle of a request.
 *
 * <pre>{@code
 * try (FaultProxy faults = FaultProxy.start(new InetSocketAddress("127.0.0.1", serverPort))) {
 *   Proxy echo = tether.proxy("echo:" + faults.endpoint());
 *   faults.latency(Duration.ofMillis(50));   // every chunk, both ways, 50 ms late
 *   faults.freeze();                         // nothing moves; every socket stays open
 *   faults.unfreeze();                       // held bytes move on, in order
 *   faults.resetAll();                       // every open connection gets an RST
 *   faults.stop();                           // connects are refused ...
 *   faults.restart();                        // ... until the same port listens again
 * }
 * }</pre>
 *
 * <p>It listens on {@code 127.0.0.1} and opens one connection to its target per connection it
 * accepts. A <em>mode</em> ({@link #pass()}, {@link #latency(Duration)}, {@link #freeze()}) applies
 * to the connections open now and to later ones until another mode replaces it; an <em>action</em>
 * ({@link #resetAll()}, {@link #closeAll()}) hits the connections open now. Bytes are never
 * reordered. A socket that ends (FIN) or breaks (RST) ends or resets the other socket of its
 * connection, after the bytes read before it, so an end is delayed and held like bytes are.
 * Half-closed connections are not relayed: one side's FIN closes the connection.
 *
 * <p>Every method may be called from any thread, and takes effect before it returns: after {@link
 * #freeze()} no further byte is forwarded. All state lives on one daemon thread, the proxy's event
 * loop (native epoll when available, else NIO); {@link #close()} ends it.
 */
public final class FaultProxy implements AutoCloseable {
  private static final String LOOPBACK = "127.0.0.1";

  /** How connections treat bytes; switched by the public mode methods. */
  private enum Mode {
    /** Bytes are forwarded as soon as they are read. */
    PASS,
    /** Every chunk read waits {@code latencyNanos} before it is forwarded. */
    DELAY,
    /** Nothing is read or forwarded; every socket stays open. */
    FREEZE
  }

  /** A cut armed by {@link #cutAfter}: {@code bytes} more may pass in {@code direction}. */
  record Cut(long bytes, Direction direction) {}

  private final EventLoopGroup group;
  private final EventLoop loop;

  /** Where every public method reads and changes the state below: on the loop. */
  private final LoopQueries onLoop;

  private final Bootstrap upstreamBootstrap;
  private final int port;

  // Everything below is confined to the event loop.
  private final Listener listener;
  private boolean closed;
  private InetSocketAddress target;
  private Mode mode = Mode.PASS;

  /** Non-zero only while DELAY. */
  private long latencyNanos;

  /** Non-null from {@link #cutAfter} until {@link #pass()}. */
  private Cut cut;

  private boolean refusingNew;
  private final Set<Link> links = new LinkedHashSet<>();
  private int acceptedConnections;
  private final long[] bytesForwarded = new long[Direction.values().length];

  private FaultProxy(InetSocketAddress target, SocketIo flavor) {
    this.target = target;
    this.group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("tether-fault-proxy", true), flavor.ioHandlerFactory());
    this.loop = group.next();
    this.onLoop = new LoopQueries(loop);
    this.listener =
        new Listener(
            new ServerBootstrap()
                .group(loop)
                .channel(flavor.serverSocketChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new Acceptor(this)),
            loop);
    this.upstreamBootstrap =
        new Bootstrap()
            .group(loop)
            .channel(flavor.socketChannel())
            .option(ChannelOption.AUTO_READ, false)
            .option(ChannelOption.TCP_NODELAY, true);
    try {
      // restart() needs the port back: one no outgoing connection can take while it is stopped.
      this.port = StablePorts.listenOnOne(this::listenOn);
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      throw e;
    }
  }

  /**
   * Starts a proxy on {@code 127.0.0.1}, on a free port, in mode {@link #pass()}, that forwards
   * each connection it accepts to {@code target}.
   *
   * @throws UncheckedIOException if no port can be bound
   */
  public static FaultProxy start(InetSocketAddress target) {
    return start(target, SocketIo.best(Boolean.getBoolean("tether.transport.nio")));
  }

  /** Like {@link #start(InetSocketAddress)} with {@code new InetSocketAddress(host, port)}. */
  public static FaultProxy start(String host, int port) {
    return start(new InetSocketAddress(host, port));
  }

  /** Like {@link #start(InetSocketAddress)} on the given socket implementation. */
  static FaultProxy start(InetSocketAddress target, SocketIo flavor) {
    return new FaultProxy(Objects.requireNonNull(target, "target"), flavor);
  }

  /** The port this proxy listens on, the same across {@link #stop()} and {@link #restart()}. */
  public int port() {
    return port;
  }

  /** {@code 127.0.0.1:}{@link #port()}, the address clients connect to. */
  public InetSocketAddress address() {
    return loopback(port);
  }

  /**
   * This proxy as a Tether endpoint, {@code "tcp -h 127.0.0.1 -p <port>"}: a client reaches the
   * service {@code echo} through the proxy with {@code tether.proxy("echo:" + endpoint())}.
   */
  public String endpoint() {
    return "tcp -h " + LOOPBACK + " -p " + port;
  }

  /** Where new connections go; connections open now stay with their server. */
  public void retarget(InetSocketAddress newTarget) {
    Objects.requireNonNull(newTarget, "newTarget");
    act(() -> target = newTarget);
  }

  /** Where new connections go. */
  public InetSocketAddress target() {
    return onLoop.query(() -> target);
  }

  /**
   * Forwards bytes as soon as they are read (the initial mode); releases what {@link #freeze()}
   * held and disarms {@link #cutAfter}. Chunks already delayed by {@link #latency} still leave at
   * their time, and later chunks queue behind them.
   */
  public void pass() {
    act(
        () -> {
          cut = null;
          for (Link link : openLinks()) {
            link.armCut(null);
          }
          changeMode(Mode.PASS, 0);
        });
  }

  /**
   * Delays every chunk read, in both directions, by {@code delay} before forwarding it, keeping
   * their order: a round trip takes at least twice {@code delay} longer. Chunks wait in memory (a
   * connection stops reading a side while 1 MiB from it waits).
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public void latency(Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("negative latency " + delay);
    }
    long delayNanos = delay.toNanos();
    act(() -> changeMode(Mode.DELAY, delayNanos));
  }

  /**
   * Stops forwarding both ways without closing anything, like a peer gone silent behind a
   * blackholing network: the proxy stops reading every socket, so the senders' TCP windows fill and
   * their writes stall; bytes already read are held. Connections accepted while frozen are
   * connected to the target but not read either. {@link #unfreeze()} lets everything flow again.
   */
  public void freeze() {
    act(() -> changeMode(Mode.FREEZE, 0));
  }

  /** The same as {@link #pass()}. */
  public void unfreeze() {
    pass();
  }

  /**
   * Closes both sockets of every connection open now with an RST (SO_LINGER 0, then close): the
   * client and the server each see "connection reset". Held bytes are dropped.
   */
  public void resetAll() {
    act(
        () -> {
          for (Link link : openLinks()) {
            link.reset();
          }
        });
  }

  /**
   * Closes both sockets of every connection open now with a FIN: the client and the server each
   * read end-of-stream. Held bytes are dropped. (The kernel sends RST instead of FIN from a socket
   * that still has unread bytes, e.g. bytes a frozen proxy did not read.)
   */
  public void closeAll() {
    act(
        () -> {
          for (Link link : openLinks()) {
            link.close();
          }
        });
  }

  /**
   * Lets {@code bytes} more bytes through in {@code direction} on each connection open now, and on
   * each new one from its start, then resets the connection (both sides, RST) on the first byte
   * past them. That byte and all after it are dropped: a request cut this way never reaches the
   * server whole, and a response cut this way never reaches the client whole. A connection that
   * sends no more than {@code bytes} is not cut. Applies until {@link #pass()}; a later call
   * replaces the cut (in both directions); {@link #latency} and {@link #freeze()} keep it.
   *
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public void cutAfter(long bytes, Direction direction) {
    if (bytes < 0) {
      throw new IllegalArgumentException("negative byte count " + bytes);
    }
    Cut next = new Cut(bytes, Objects.requireNonNull(direction, "direction"));
    act(
        () -> {
          cut = next;
          for (Link link : openLinks()) {
            link.armCut(next);
          }
        });
  }

  /**
   * While {@code refuse} is true, every new connection is accepted and reset at once (clients see
   * their connect succeed, then "connection reset"). For a node that is down, whose port refuses
   * connects, use {@link #stop()}.
   */
  public void refuseNew(boolean refuse) {
    act(() -> refusingNew = refuse);
  }

  /**
   * Closes the listening socket: new connects fail with "connection refused", as with a node that
   * is down. Connections open now are left alone; add {@link #resetAll()} for a node that crashed.
   * (A connect the kernel completed but the proxy had not accepted yet is reset.)
   */
  public void stop() {
    onLoop
        .query(
            () -> {
              requireNotClosed();
              return listener.stop();
            })
        .awaitUninterruptibly();
  }

  /**
   * Listens on {@link #port()} again after {@link #stop()}; does nothing while listening.
   *
   * @throws UncheckedIOException if the port cannot be bound, e.g. another process took it
   */
  public void restart() {
    listenOn(port);
  }

  /** Listens on {@code port} unless listening already; returns the port bound. */
  private int listenOn(int port) {
    ChannelFuture bound =
        onLoop.query(
            () -> {
              requireNotClosed();
              return listener.listen(loopback(port));
            });
    if (!bound.awaitUninterruptibly().isSuccess()) {
      throw listenFailed(port, bound.cause());
    }
    return ((InetSocketAddress) bound.channel().localAddress()).getPort();
  }

  /** How many connections are relayed now: accepted and not yet closed or reset by either side. */
  public int openConnections() {
    return onLoop.query(links::size);
  }

  /** How many connections were accepted since the start, those {@link #refuseNew} reset too. */
  public int acceptedConnections() {
    return onLoop.query(() -> acceptedConnections);
  }

  /** How many bytes were forwarded in {@code direction} since the start, over all connections. */
  public long bytesForwarded(Direction direction) {
    Objects.requireNonNull(direction, "direction");
    return onLoop.query(() -> bytesForwarded[direction.ordinal()]);
  }

  /**
   * Closes the listening socket and every connection (FIN) and ends the proxy's thread; returns
   * once it has ended. Idempotent. Afterwards the counters keep their last values, and every other
   * method throws {@link IllegalStateException}.
   */
  @Override
  public void close() {
    if (!group.isShuttingDown()) {
      onLoop.query(
          () -> {
            closeEverything();
            return null;
          });
    }
    Future<?> terminated = group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    if (!loop.inEventLoop()) {
      terminated.awaitUninterruptibly();
    }
  }

  @Override
  public String toString() {
    return "FaultProxy[" + LOOPBACK + ":" + port + "]";
  }

  // Called by links and flows, on the event loop.

  void onAccepted(Channel client) {
    acceptedConnections++;
    if (refusingNew || closed) {
      Link.resetChannel(client);
      return;
    }
    Link link = new Link(this, client);
    links.add(link);
    link.armCut(cut);
    link.connect(upstreamBootstrap, target);
  }

  void onLinkClosed(Link link) {
    links.remove(link);
  }

  boolean isFrozen() {
    return mode == Mode.FREEZE;
  }

  long latencyNanos() {
    return latencyNanos;
  }

  long nowNanos() {
    return loop.ticker().nanoTime();
  }

  void countForwarded(Direction direction, int bytes) {
    bytesForwarded[direction.ordinal()] += bytes;
  }

  // Private, on the event loop.

  private void changeMode(Mode next, long nextLatencyNanos) {
    mode = next;
    latencyNanos = nextLatencyNanos;
    for (Link link : openLinks()) {
      link.onModeChanged();
    }
  }

  /** A copy: acting on a link may close it, which removes it from {@link #links}. */
  private List<Link> openLinks() {
    return List.copyOf(links);
  }

  private void closeEverything() {
    if (closed) {
      return;
    }
    closed = true;
    listener.close();
    for (Link link : openLinks()) {
      link.close();
    }
  }

  private void requireNotClosed() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  /** Runs a change on the event loop, unless the proxy is closed. */
  private void act(Runnable task) {
    onLoop.query(
        () -> {
          requireNotClosed();
          task.run();
          return null;
        });
  }

  private static InetSocketAddress loopback(int port) {
    return new InetSocketAddress(LOOPBACK, port);
  }

  private static RuntimeException listenFailed(int port, Throwable cause) {
    String where = LOOPBACK + ":" + port;
    if (cause instanceof IOException io) {
      return new UncheckedIOException("cannot listen on " + where, io);
    }
    return new IllegalStateException("cannot listen on " + where, cause);
  }

  /** Hands each accepted socket to the proxy, before it is read. */
  private static final class Acceptor extends ChannelInitializer<Channel> {
    private final FaultProxy proxy;

    Acceptor(FaultProxy proxy) {
      this.proxy = proxy;
    }

    @Override
    protected void initChannel(Channel client) {
      proxy.onAccepted(client);
    }
  }
}
