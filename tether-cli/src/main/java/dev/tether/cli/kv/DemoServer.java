package dev.tether.cli.kv;

import dev.tether.Endpoint;
import dev.tether.ExecutionMode;
import dev.tether.TetherServer;
import dev.tether.observe.TetherListener;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;

/**
 * A started {@link TetherServer} serving the demo services under a name, with its server-side
 * counters:
 *
 * <ul>
 *   <li>{@code echo} (untyped): operation {@code echo} returns the payload;
 *   <li>{@code kv} (typed, {@link KeyValue}): a key-value store with counters;
 *   <li>{@code ticks} (a stream service): numbered items, operation {@code count} as fast as the
 *       client asks, {@code tick} one per tick interval; the request says how many (none: without
 *       end).
 * </ul>
 */
public final class DemoServer {
  /** The identity of the untyped echo service. */
  public static final String ECHO = "echo";

  /** The identity of the typed {@link KeyValue} service. */
  public static final String KV = "kv";

  /** The identity of the stream service of numbered items. */
  public static final String TICKS = "ticks";

  /** The operation of {@link #TICKS} that sends as fast as the client asks. */
  public static final String COUNT = TickService.COUNT;

  /** The operation of {@link #TICKS} that sends one item per tick interval. */
  public static final String TICK = TickService.TICK;

  /** How often {@link #TICK} sends when the server is not told otherwise. */
  public static final Duration DEFAULT_TICK_INTERVAL = Duration.ofSeconds(1);

  private final String name;
  private final TetherServer server;
  private final ServerStats stats;
  private final TickService ticks;
  // A node may be stopped twice (by a scenario, then by the cluster's close): only the first stop,
  // abrupt or graceful, acts.
  private final AtomicBoolean stopped = new AtomicBoolean();

  private DemoServer(String name, TetherServer server, ServerStats stats, TickService ticks) {
    this.name = name;
    this.server = server;
    this.stats = stats;
    this.ticks = ticks;
  }

  /**
   * Builds and starts a server.
   *
   * @param name the name results report, e.g. "server-1"
   * @param endpoints where to listen, in grammar form, e.g. {@code "tcp -h 127.0.0.1 -p 0"}
   * @param mode where service code runs; DIRECT is safe here because no operation blocks
   * @param store the state behind {@code kv}; servers sharing one store act as one database
   */
  public static DemoServer start(
      String name, String endpoints, ExecutionMode mode, KeyValueStore store) {
    return start(name, endpoints, mode, store, () -> {});
  }

  /**
   * As {@link #start(String, String, ExecutionMode, KeyValueStore)}, running {@code afterIncrement}
   * on the service thread after each increment changed the store and before its reply is sent: the
   * demo uses it to stop a server at the worst moment for a non-idempotent call.
   */
  public static DemoServer start(
      String name,
      String endpoints,
      ExecutionMode mode,
      KeyValueStore store,
      Runnable afterIncrement) {
    return start(name, endpoints, mode, store, afterIncrement, null);
  }

  /**
   * As {@link #start(String, String, ExecutionMode, KeyValueStore, Runnable)}, with the server's
   * events going to {@code listener} (none when null): a status page's event list, for one.
   */
  public static DemoServer start(
      String name,
      String endpoints,
      ExecutionMode mode,
      KeyValueStore store,
      Runnable afterIncrement,
      TetherListener listener) {
    return start(name, endpoints, mode, store, afterIncrement, listener, DEFAULT_TICK_INTERVAL);
  }

  /**
   * As {@link #start(String, String, ExecutionMode, KeyValueStore, Runnable, TetherListener)}, with
   * {@link #TICK} sending one item per {@code tickInterval}.
   */
  public static DemoServer start(
      String name,
      String endpoints,
      ExecutionMode mode,
      KeyValueStore store,
      Runnable afterIncrement,
      TetherListener listener,
      Duration tickInterval) {
    return start(
        name, endpoints, mode, store, afterIncrement, listener, tickInterval, (b, stats) -> b);
  }

  /**
   * As {@link #start(String, String, ExecutionMode, KeyValueStore, Runnable, TetherListener,
   * Duration)}, with {@code extras} given the server's builder (and the stats its calls count in)
   * before it is built: {@link GrpcDemo#configure} adds gRPC.
   */
  public static DemoServer start(
      String name,
      String endpoints,
      ExecutionMode mode,
      KeyValueStore store,
      Runnable afterIncrement,
      TetherListener listener,
      Duration tickInterval,
      BiFunction<TetherServer.Builder, ServerStats, TetherServer.Builder> extras) {
    Objects.requireNonNull(name);
    ServerStats stats = new ServerStats();
    TickService ticks = new TickService(tickInterval, stats);
    TetherServer.Builder builder =
        TetherServer.builder()
            .endpoints(endpoints)
            .executionMode(mode)
            .service(
                ECHO,
                (operation, payload, context) -> {
                  if (!"echo".equals(operation)) {
                    throw new IllegalArgumentException(
                        "echo has one operation, \"echo\"; got \"" + operation + "\"");
                  }
                  stats.callServed();
                  return payload;
                })
            .service(KV, KeyValue.class, new KeyValueService(name, store, stats, afterIncrement))
            .streamService(TICKS, ticks);
    if (listener != null) {
      builder.listener(listener);
    }
    try {
      return new DemoServer(name, extras.apply(builder, stats).build().start(), stats, ticks);
    } catch (RuntimeException e) {
      ticks.close();
      throw e;
    }
  }

  public String name() {
    return name;
  }

  /** The running Tether server. */
  public TetherServer server() {
    return server;
  }

  public ServerStats stats() {
    return stats;
  }

  /** The endpoints really listened on. */
  public List<Endpoint> endpoints() {
    return server.endpoints();
  }

  /** {@code service + ":" + endpoints}, ready for {@code tether.proxy}. */
  public String proxyString(String service) {
    return server.proxyString(service);
  }

  /**
   * Stops at once: connections dropped, calls in flight interrupted, their replies lost.
   * Idempotent.
   */
  public void close() {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    server.close();
    ticks.close();
  }

  /**
   * Drains (GOAWAY, calls in flight finish) for at most {@code grace}, then stops; no-op once
   * stopped.
   */
  public void shutdownGracefully(Duration grace) {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    server.shutdownGracefully(grace);
    ticks.close();
  }
}
