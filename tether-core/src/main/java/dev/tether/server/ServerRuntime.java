package dev.tether.server;

import dev.tether.Endpoint;
import dev.tether.TetherException;
import dev.tether.internal.EventBus;
import dev.tether.internal.SerialExecutor;
import dev.tether.observe.ServerStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.Welcome;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.spi.WireProtocol;
import dev.tether.transport.TlsWatch;
import dev.tether.transport.TransportSet;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The running server behind a {@code TetherServer}: its lifecycle (running, draining, closed), the
 * set of live connections it admitted, and the two ways to stop (graceful drain, or at once). It
 * admits each connection {@link ServerPipelines} set up and is the host the connection reports to;
 * the sockets it listens on are {@link ServerListeners}'. The lifecycle and the set of connections
 * belong to one serial control executor; each connection's own state belongs to its event loop.
 */
public final class ServerRuntime implements ProtocolHost.Admission {
  /** The life of a server. */
  enum Lifecycle {
    /** Accepting connections and serving requests. */
    RUNNING,
    /** Stopped accepting; connections got GOAWAY and finish their accepted requests. */
    DRAINING,
    /** Listeners and connections closed, threads freed; terminal. */
    CLOSED
  }

  /** The timing settings of a server; durations of zero turn a timer off. */
  public record Timing(
      Ticker ticker,
      Scheduler scheduler,
      Duration readerIdle,
      Duration handshakeTimeout,
      ConnectionAge age) {
    /** Timing whose connections never age. */
    public Timing(
        Ticker ticker, Scheduler scheduler, Duration readerIdle, Duration handshakeTimeout) {
      this(ticker, scheduler, readerIdle, handshakeTimeout, ConnectionAge.off());
    }
  }

  private final ServerListeners listeners;
  private final TransportSet transports;
  private final Dispatcher dispatcher;
  private final StreamRegistry streams;
  private final ServedProtocols others;
  private final Supplier<Welcome> welcome;

  /** Connections served at once; the next is turned away with GOAWAY(TOO_MANY_CONNECTIONS). */
  private final int maxConnections;

  private final ServerClock clock;
  private final long readerIdleNanos;
  private final long handshakeTimeoutNanos;
  private final ConnectionAge connectionAge;

  /** Connections told GOAWAY(MAX_AGE); counted on their loops, read by status. */
  private final LongAdder aged = new LongAdder();

  /** Non-null only when the runtime created the executor and so must stop it. */
  private final ExecutorService ownedExecutor;

  private final EventBus events;
  private final ServerPipelines pipelines;

  /** Owns the fields below; tasks must not block. */
  private final SerialExecutor control = new SerialExecutor();

  private Lifecycle lifecycle = Lifecycle.RUNNING;
  private final Set<ServerConnection> connections = new HashSet<>();

  /** The connections of other protocols, counted with Tether's against maxConnections. */
  private final ProtocolCensus census;

  /** Requests served by connections that have closed; open ones count their own. */
  private long servedByClosed;

  /** Non-null only while DRAINING: completes when the last connection has closed. */
  private CompletableFuture<Boolean> allClosed;

  /** Non-null once {@link #watchTls} started one; stopped by close. */
  private TlsWatch tlsWatch;

  /**
   * @param streams the server's stream services and the streams it keeps across connections
   * @param others the protocols its stream endpoints speak beside Tether's
   */
  public ServerRuntime(
      List<Endpoint> endpoints,
      TransportSet transports,
      Dispatcher dispatcher,
      Supplier<Welcome> welcome,
      int maxFrameSize,
      int maxConnections,
      Timing timing,
      ExecutorService ownedExecutor,
      EventBus events,
      BodyCompression.Settings compression,
      StreamRegistry streams,
      ServedProtocols others) {
    this.streams = streams;
    this.others = others;
    this.events = events;
    this.listeners = new ServerListeners(endpoints, transports);
    this.transports = transports;
    this.dispatcher = dispatcher;
    this.welcome = welcome;
    this.maxConnections = maxConnections;
    this.clock = new ServerClock(timing.ticker(), timing.scheduler());
    this.readerIdleNanos = timing.readerIdle().toNanos();
    this.handshakeTimeoutNanos = timing.handshakeTimeout().toNanos();
    this.connectionAge = timing.age();
    this.ownedExecutor = ownedExecutor;
    this.census = new ProtocolCensus(others.protocols().stream().map(WireProtocol::name).toList());
    this.pipelines =
        new ServerPipelines(
            this,
            compression,
            maxFrameSize,
            c -> control.execute(() -> admit(c)),
            dispatcher,
            others.protocols().stream()
                .map(p -> new ProtocolHost(p, others, dispatcher, this))
                .toList(),
            clock,
            handshakeTimeoutNanos);
  }

  /**
   * Binds every endpoint; on failure unbinds what was bound, frees the threads and throws a
   * TetherException naming the endpoint.
   */
  public void start() {
    for (Endpoint e : listeners.requested()) {
      try {
        listeners.bind(e, pipelines.stream(), pipelines.datagram());
      } catch (Throwable failure) {
        // Netty rethrows bind errors as undeclared checked exceptions: catch them all.
        close();
        if (failure instanceof IllegalArgumentException iae) {
          throw iae;
        }
        throw new TetherException("cannot listen on " + e + ": " + failure.getMessage(), failure);
      }
    }
  }

  /**
   * A connection that arrives after the server stopped running is closed, never served; one beyond
   * maxConnections is answered GOAWAY at its HELLO and never served either.
   */
  private void admit(ServerConnection connection) {
    if (lifecycle != Lifecycle.RUNNING) {
      connection.channel().close();
    } else if (connections.size() + census.size() >= maxConnections) {
      connection.refuse(
          "too many connections: the server serves at most "
              + maxConnections
              + " (tether.server.maxConnections); try another server");
    } else {
      connections.add(connection);
      connection.admit();
    }
  }

  /**
   * Counts a connection of another protocol in (from its loop), or closes it when the server
   * stopped running or serves maxConnections already; counts it out as it closes.
   */
  @Override
  public void admit(ProtocolConnection c) {
    c.channel()
        .closeFuture()
        .addListener(closed -> control.execute(() -> census.closed(c, c.served())));
    control.execute(
        () -> {
          if (lifecycle != Lifecycle.RUNNING
              || connections.size() + census.size() >= maxConnections) {
            c.refuse();
          } else if (c.channel().isActive()) {
            census.add(c);
            String detail = c.protocol() + ": client preface read";
            emit(TetherEvent.Kind.ACCEPTED, c.channel(), detail, null);
          }
        });
  }

  /** The cluster view changed: every open connection tells its client, if the client speaks 1.1. */
  public void announceTopology() {
    eachConnection(ServerConnection::announceTopology);
  }

  /**
   * The server is no longer its cluster's primary: every open connection's client is moved on as
   * from an aged connection (after the TOPOLOGY frames of an {@link #announceTopology} called
   * before, which leave first on each loop).
   */
  public void noLongerPrimary(String why) {
    eachConnection(c -> c.noLongerPrimary(why));
  }

  /** Runs {@code step} for every open Tether connection, on the control executor. */
  private void eachConnection(Consumer<ServerConnection> step) {
    control.execute(() -> connections.forEach(step));
  }

  public List<Endpoint> boundEndpoints() {
    return listeners.bound();
  }

  @Override
  public Dispatcher dispatcher() {
    return dispatcher;
  }

  @Override
  public StreamRegistry streams() {
    return streams;
  }

  @Override
  public Welcome welcome() {
    return welcome.get();
  }

  @Override
  public ServerClock clock() {
    return clock;
  }

  @Override
  public long readerIdleNanos() {
    return readerIdleNanos;
  }

  @Override
  public long handshakeTimeoutNanos() {
    return handshakeTimeoutNanos;
  }

  @Override
  public ConnectionAge connectionAge() {
    return connectionAge;
  }

  @Override
  public void connectionAged() {
    aged.increment();
  }

  /** New ssl connections use {@code next}; connections already open keep their session. */
  public void reloadTls(SslContext next) {
    transports.reloadTls(next);
  }

  /**
   * Checks {@code files} every {@code interval} on the server's scheduler and runs {@code reload}
   * when one changed; stops when the server closes.
   */
  public void watchTls(List<Path> files, Duration interval, Runnable reload) {
    control.execute(
        () -> {
          if (lifecycle == Lifecycle.RUNNING && tlsWatch == null) {
            tlsWatch = new TlsWatch(files, reload, clock.scheduler(), control, interval.toNanos());
            tlsWatch.start();
          }
        });
  }

  /** How many stream connections are open now. */
  public int connectionCount() {
    return openConnections().size();
  }

  /** The stream connections open now, as the control executor sees them. */
  List<ServerConnection> openConnections() {
    return onControl(() -> List.copyOf(connections)).join();
  }

  /** Runs {@code read} on the control executor and hands back its result. */
  private <T> CompletableFuture<T> onControl(Supplier<T> read) {
    CompletableFuture<T> result = new CompletableFuture<>();
    control.execute(() -> result.complete(read.get()));
    return result;
  }

  @Override
  public void connectionClosed(ServerConnection c, long served) {
    control.execute(
        () -> {
          servedByClosed += served;
          connections.remove(c);
          if (lifecycle == Lifecycle.DRAINING && connections.isEmpty()) {
            allClosed.complete(true);
          }
        });
  }

  /**
   * Emits a server event about one connection; its endpoint is the listening endpoint it came in
   * on.
   */
  @Override
  public void emit(TetherEvent.Kind kind, Channel channel, String detail, Throwable cause) {
    if (events.isOn()) {
      events.emit(
          kind,
          listeners.endpointOf(channel),
          detail + " (client " + channel.remoteAddress() + ")",
          cause);
    }
  }

  /** Every change of lifecycle goes through here, on the control executor, and emits its event. */
  private void transitionTo(Lifecycle next, String why) {
    control.assertInExecutor();
    Lifecycle previous = lifecycle;
    if (previous == Lifecycle.CLOSED || previous == next) {
      return;
    }
    lifecycle = next;
    switch (next) {
      case DRAINING ->
          allClosed =
              connections.isEmpty()
                  ? CompletableFuture.completedFuture(true)
                  : new CompletableFuture<>();
      case CLOSED -> {
        if (tlsWatch != null) {
          tlsWatch.stop();
        }
        if (previous == Lifecycle.DRAINING) {
          events.emit(TetherEvent.Kind.DRAINED, null, why, null);
        }
        allClosed = null;
      }
      default -> {}
    }
  }

  /**
   * A snapshot: the lifecycle and the open connections from the control executor, each connection's
   * counts from its own loop, so nothing is read off its owner. A connection whose loop does not
   * answer within a second is left out of the counts.
   */
  public ServerStatus status() {
    return onControl(
            () ->
                new StatusCounts(
                    lifecycle.name(), List.copyOf(connections), servedByClosed, census.snapshot()))
        .join()
        .read(census, aged.sum(), streams);
  }

  /**
   * Stops accepting, sends GOAWAY on every connection, lets accepted requests finish and clients
   * close, and closes whatever is left at the deadline, which the server's scheduler keeps. Then
   * frees the threads. A second call, or one after close, returns at once.
   */
  public void shutdownGracefully(Duration grace) {
    record Drain(CompletableFuture<Boolean> allClosed, List<ServerConnection> open) {}
    Drain drain =
        onControl(
                () -> {
                  if (lifecycle != Lifecycle.RUNNING) {
                    return null;
                  }
                  transitionTo(Lifecycle.DRAINING, "shutdownGracefully");
                  return new Drain(allClosed, List.copyOf(connections));
                })
            .join();
    if (drain == null) {
      return;
    }
    listeners.closeAll();
    for (ServerConnection c : drain.open()) {
      c.beginDrain();
    }
    // Other protocols' connections drain beside Tether's, then the run queue empties; the grace
    // deadline ends every wait.
    CompletableFuture<Boolean> everything =
        dispatcher.drain(drain.allClosed().thenCombine(others.drain(), (tether, other) -> tether));
    Scheduler.Cancellable deadline =
        clock
            .scheduler()
            .schedule(
                () -> {
                  drain.allClosed().complete(false);
                  everything.complete(false);
                },
                grace.toNanos());
    boolean all = everything.join();
    deadline.cancel();
    close(
        all
            ? "every connection closed after draining (" + drain.open().size() + ")"
            : "connections still open at the grace deadline of " + grace + " were closed");
  }

  /** Closes every listener and connection at once, without draining, and frees the threads. */
  public void close() {
    close("closed without draining");
  }

  private void close(String why) {
    List<ServerConnection> open =
        onControl(
                () -> {
                  if (lifecycle == Lifecycle.CLOSED) {
                    return null;
                  }
                  transitionTo(Lifecycle.CLOSED, why);
                  return List.copyOf(connections);
                })
            .join();
    if (open == null) {
      return;
    }
    listeners.closeAll();
    streams.closeAll("server shut down", 1_000);
    for (ServerConnection c : open) {
      c.channel().close();
    }
    dispatcher.close();
    if (ownedExecutor != null) {
      ownedExecutor.shutdownNow();
    }
    transports.shutdown().syncUninterruptibly();
    events.close();
  }
}
