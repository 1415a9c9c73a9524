package dev.tether.micrometer;

import dev.tether.ConnectionState;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.ServerStatus;
import dev.tether.observe.TetherEvent;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Publishes the meters listed in docs/guide.md for one client runtime or server into a {@link
 * MeterRegistry}. Every value comes from the {@code status()} snapshots, which a daemon thread
 * reads once per {@link #DEFAULT_INTERVAL} (a server's when scraped), except the {@code
 * *.stream.events} counters, which a listener counts from the stream events emitted after the
 * binding; {@link #close()} stops both and removes the meters.
 *
 * <p>What snapshots cannot show: calls a connection finished after the last snapshot that listed it
 * are not counted; {@code tether.client.retries} tells retried from refused-by-budget but not the
 * failure behind a retry; {@code tether.client.call.latency} records each node's recent average
 * once per refresh (nothing for proxies without load balancing), so its percentiles are of
 * averages, not of calls; {@code *.stream.items} counts the items of open streams too, since the
 * runtime or server started, as its snapshot shows them (brought up to date after each batch of a
 * stream's items).
 */
public final class TetherMetrics implements AutoCloseable {
  /** How often a client runtime's snapshot is taken; gauges and counters move at this pace. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

  /** Node health values core reports; one gauge each, so a health that is absent reads 0. */
  static final List<String> HEALTHS =
      List.of("ALIVE", "DEAD", "INCOMPATIBLE", "EJECTED", "PROBING", "UNKNOWN");

  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();

  /** Set by close: a refresh that runs on registers no more meters. Guarded by this. */
  private boolean closed;

  /** Removes the stream events listener from the runtime or server. */
  private final Runnable unlisten;

  /** Null for a server, whose meters read its status directly at scrape time. */
  private final ScheduledExecutorService poller;

  private TetherMetrics(
      MeterRegistry registry, ScheduledExecutorService poller, Runnable unlisten) {
    this.registry = registry;
    this.poller = poller;
    this.unlisten = unlisten;
  }

  /** Client meters for {@code tether}, refreshed every {@link #DEFAULT_INTERVAL}. */
  public static TetherMetrics bind(Tether tether, MeterRegistry registry) {
    return bind(tether, registry, DEFAULT_INTERVAL);
  }

  /** Client meters for {@code tether}, refreshed every {@code interval}. */
  public static TetherMetrics bind(Tether tether, MeterRegistry registry, Duration interval) {
    Objects.requireNonNull(tether, "tether");
    Objects.requireNonNull(registry, "registry");
    ScheduledExecutorService poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tether-metrics");
              t.setDaemon(true);
              return t;
            });
    StreamTally streams = new StreamTally();
    TetherMetrics metrics =
        new TetherMetrics(registry, poller, () -> tether.removeListener(streams));
    ClientTally[] made = new ClientTally[1];
    ClientTally tally =
        new ClientTally(tether::status, protocol -> metrics.registerProtocol(made[0], protocol));
    made[0] = tally;
    metrics.registerClient(tally);
    metrics.registerStreamEvents("tether.client", streams, List.of());
    metrics.registerStreamItems("tether.client", tally, ClientTally::streamItems, List.of());
    tether.addListener(streams);
    long periodNanos = interval.toNanos();
    poller.scheduleWithFixedDelay(
        () -> metrics.refresh(tally), 0, periodNanos, TimeUnit.NANOSECONDS);
    return metrics;
  }

  /** Server meters for {@code server}; they read {@code server.status()} whenever scraped. */
  public static TetherMetrics bind(TetherServer server, MeterRegistry registry) {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(registry, "registry");
    StreamTally streams = new StreamTally();
    TetherMetrics metrics = new TetherMetrics(registry, null, () -> server.removeListener(streams));
    String id = server.serverId();
    // One series per protocol the server speaks on its port ("tether", and "grpc" when it serves
    // gRPC too): the set is fixed when the server is built.
    for (ServerStatus.ProtocolShare share : server.status().byProtocol()) {
      String protocol = share.protocol();
      metrics.meters.add(
          FunctionCounter.builder(
                  "tether.server.calls", server, s -> s.status().protocol(protocol).served())
              .tags("server", id, "protocol", protocol)
              .description("requests answered")
              .register(registry));
      metrics.meters.add(
          Gauge.builder(
                  "tether.server.connections",
                  server,
                  s -> s.status().protocol(protocol).connections())
              .tags("server", id, "protocol", protocol)
              .description("client connections open")
              .register(registry));
      metrics.meters.add(
          Gauge.builder(
                  "tether.server.inflight", server, s -> s.status().protocol(protocol).inFlight())
              .tags("server", id, "protocol", protocol)
              .description("requests accepted and not answered")
              .register(registry));
    }
    metrics.meters.add(
        Gauge.builder("tether.server.running", server, s -> running(s.status()))
            .tag("server", id)
            .description("1 while the server accepts calls")
            .register(registry));
    metrics.meters.add(
        Gauge.builder("tether.server.streams", server, s -> s.status().streams())
            .tags("server", id, "state", "open")
            .description("streams open on the server's connections")
            .register(registry));
    metrics.meters.add(
        Gauge.builder("tether.server.streams", server, s -> s.status().detachedStreams())
            .tags("server", id, "state", "detached")
            .description("streams whose connection was lost, waiting for a resume")
            .register(registry));
    metrics.registerStreamEvents("tether.server", streams, List.of(Tag.of("server", id)));
    metrics.registerStreamItems(
        "tether.server", server, s -> s.status().streamItems(), List.of(Tag.of("server", id)));
    server.addListener(streams);
    return metrics;
  }

  /** {@code prefix.stream.events} by event, from {@code tally}. */
  private void registerStreamEvents(String prefix, StreamTally tally, List<Tag> tags) {
    for (TetherEvent.Kind kind : StreamTally.KINDS) {
      meters.add(
          FunctionCounter.builder(prefix + ".stream.events", tally, t -> t.events(kind))
              .tags(tags)
              .tag("event", StreamTally.tagOf(kind))
              .description("stream openings, resumes, losses and ends")
              .register(registry));
    }
  }

  /**
   * {@code prefix.stream.items} by direction, from the item totals {@code items} reads of {@code
   * source}.
   */
  private <T> void registerStreamItems(
      String prefix, T source, Function<T, TetherEvent.StreamItems> items, List<Tag> tags) {
    meters.add(
        FunctionCounter.builder(prefix + ".stream.items", source, s -> items.apply(s).sent())
            .tags(tags)
            .tag("direction", "sent")
            .description("items sent by streams, open ones included")
            .register(registry));
    meters.add(
        FunctionCounter.builder(prefix + ".stream.items", source, s -> items.apply(s).received())
            .tags(tags)
            .tag("direction", "received")
            .description("items delivered to subscribers, open streams included")
            .register(registry));
  }

  private static double running(ServerStatus s) {
    return "RUNNING".equals(s.state()) ? 1 : 0;
  }

  private void registerClient(ClientTally tally) {
    registerProtocol(tally, ServerStatus.TETHER);
    // Core counts retries and budget refusals but gives no reason in its snapshot; the reason tag
    // tells the two apart until it does.
    meters.add(
        FunctionCounter.builder("tether.client.retries", tally, ClientTally::retries)
            .tag("reason", "retried")
            .description("attempts tried again")
            .register(registry));
    meters.add(
        FunctionCounter.builder("tether.client.retries", tally, ClientTally::budgetRefusals)
            .tag("reason", "budget_exhausted")
            .description("retries refused by the retry budget")
            .register(registry));
    for (String health : HEALTHS) {
      meters.add(
          Gauge.builder("tether.client.nodes", tally, t -> t.nodesWith(health))
              .tag("health", health)
              .description("cluster nodes by health")
              .register(registry));
    }
    meters.add(
        Gauge.builder("tether.client.inflight", tally, ClientTally::inFlight)
            .description("calls sent and not answered")
            .register(registry));
    meters.add(
        Gauge.builder("tether.client.streams", tally, ClientTally::streams)
            .description("streams open on the runtime's connections")
            .register(registry));
    tally.latency =
        Timer.builder("tether.client.call.latency")
            .description(
                "call latency as the runtime's recent averages saw it (one sample per refresh)")
            .publishPercentiles(0.5, 0.99, 0.999)
            .register(registry);
    meters.add(tally.latency);
  }

  /**
   * The call counters and connection gauges of one protocol the runtime's connections speak ({@code
   * "tether"}, or {@code "grpc"} for a gRPC channel's): Tether's own at once, another's from the
   * refresh that first sees it.
   */
  private synchronized void registerProtocol(ClientTally tally, String protocol) {
    if (closed) {
      return;
    }
    meters.add(
        FunctionCounter.builder("tether.client.calls", tally, t -> t.callsOk(protocol))
            .tags("outcome", "ok", "protocol", protocol)
            .description("calls answered OK")
            .register(registry));
    meters.add(
        FunctionCounter.builder("tether.client.calls", tally, t -> t.callsFailed(protocol))
            .tags("outcome", "failed", "protocol", protocol)
            .description("calls that failed on a connection")
            .register(registry));
    for (ConnectionState state : ConnectionState.values()) {
      meters.add(
          Gauge.builder("tether.client.connections", tally, t -> t.connectionsIn(state, protocol))
              .tags("state", state.name(), "protocol", protocol)
              .description("connections by state")
              .register(registry));
    }
  }

  private void refresh(ClientTally tally) {
    try {
      tally.refresh();
    } catch (RuntimeException closed) {
      // A closed runtime answers no snapshot: the meters keep their last values.
    }
  }

  /** Stops refreshing and removes every meter this binding registered. */
  @Override
  public void close() {
    if (poller != null) {
      poller.shutdownNow();
    }
    unlisten.run();
    synchronized (this) { // a refresh may still be registering a protocol's meters
      closed = true;
      for (Meter m : meters) {
        registry.remove(m);
      }
      meters.clear();
    }
  }
}
