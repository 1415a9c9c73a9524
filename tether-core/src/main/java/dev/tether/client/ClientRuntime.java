package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.Resolver;
import dev.tether.TetherException;
import dev.tether.internal.RetryBudget;
import dev.tether.internal.Scheduler;
import dev.tether.internal.Ticker;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.transport.TransportSet;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client half of a {@code Tether} instance: event loops, endpoint selection, the connection
 * pool, and the path of every invocation from proxy to connection. Thread-safe.
 */
public final class ClientRuntime {
  private static final Logger retryLog = LoggerFactory.getLogger("dev.tether.trace.retry");

  private final ClientConfig config;
  private final TransportSet transports;
  private final EndpointSelector selector;
  private final ConnectionPool pool;
  private final Ticker ticker;
  private final RetryBudget retryBudget;
  private final Scheduler scheduler;
  private final Reconnector reconnector;
  private volatile boolean closing;
  private final String clientId = "tether-" + UUID.randomUUID();

  /**
   * @param scheduler runs timed work (retry rounds, invocation timeouts, reconnects); null for the
   *     runtime's own event loops
   */
  public ClientRuntime(
      ClientConfig config, Resolver resolver, SslContext tls, Ticker ticker, Scheduler scheduler, Random random) {
    this.config = config;
    this.ticker = ticker;
    this.retryBudget = new RetryBudget(config.retryBudgetRatio(), config.retryBudgetFloorPerSecond());
    this.transports = new TransportSet("tether-client", config.eventLoopThreads(), config.forceNio(), tls, null);
    this.scheduler = scheduler != null ? scheduler : Scheduler.on(transports.ioGroup());
    this.selector = new EndpointSelector(transports, resolver, config, random);
    this.pool = new ConnectionPool(this::newConnection);
    this.reconnector = new Reconnector(pool, config.reconnect(), this.scheduler, random);
  }

  private RequestChannel newConnection(Candidate candidate, ConnectionKey key) {
    return candidate.transport().isDatagram()
        ? new DatagramConnection(this, key, candidate)
        : new ClientConnection(this, key, candidate);
  }

  /** Starts a new call; the returned invocation is its future. */
  public Invocation invoke(ProxySettings settings, ProxyBinding binding, String operation, byte[] body, int flags) {
    Invocation inv = new Invocation(this, settings, binding, operation, body, flags);
    if (closing) {
      inv.fail(new TetherException("this Tether runtime is closed"));
      return inv;
    }
    retryBudget.recordCall(ticker.nanoTime());
    inv.armTimeout();
    start(inv);
    return inv;
  }

  /** Sends an invocation (first attempt or retry) on the proxy's connection, finding one first if needed. */
  void start(Invocation inv) {
    RequestChannel cached = inv.settings.connectionCached() ? inv.binding.usable() : null;
    if (cached != null) {
      hand(inv, cached);
      return;
    }
    establish(inv.settings, inv.binding).whenComplete((connection, failure) -> {
      if (failure != null) {
        inv.onConnectFailed(unwrap(failure));
      } else {
        hand(inv, connection);
      }
    });
  }

  private static void hand(Invocation inv, RequestChannel connection) {
    if (inv.settings.mode().isBatch()) {
      connection.queueBatch(inv);
    } else {
      connection.send(inv);
    }
  }

  /**
   * Sends the batch requests queued for a proxy: on its cached connection, or, for a proxy that
   * does not cache, on every pooled connection (its calls may have gone to any of them).
   */
  public void flushBatches(ProxyBinding binding) {
    RequestChannel cached = binding.usable();
    if (cached != null) {
      cached.flushBatch();
      return;
    }
    for (RequestChannel c : pool.all()) {
      c.flushBatch();
    }
  }

  /**
   * Finds or opens a connection for the proxy (seed 000, 36.3): a cached proxy reuses any pooled
   * connection to one of its endpoints; otherwise the endpoints are tried in selection order, each
   * reusing a pooled connection or opening one, round after round per {@code tether.retry.intervals}.
   */
  public CompletableFuture<RequestChannel> establish(ProxySettings settings, ProxyBinding binding) {
    List<Candidate> candidates;
    try {
      candidates = selector.select(settings);
    } catch (TetherException e) {
      return CompletableFuture.failedFuture(e);
    }
    return connect(settings, binding, candidates, 1 + config.retryIntervals().size());
  }

  private CompletableFuture<RequestChannel> connect(
      ProxySettings settings, ProxyBinding binding, List<Candidate> candidates, int rounds) {
    if (settings.connectionCached()) {
      for (Candidate c : candidates) {
        RequestChannel existing = pool.existing(c.key(settings.connectionId()));
        if (existing != null) {
          return bind(existing.ready(), binding);
        }
      }
    }
    Establishment attempt = new Establishment(settings, candidates, rounds);
    attempt.tryNext();
    return bind(attempt.result, binding);
  }

  /**
   * Sends a call again after a retryable failure: to the endpoints this round has not tried yet,
   * and once every endpoint was tried, after the next retry interval, to all of them again
   * (re-resolved); when no round is left, the call fails with its latest cause.
   */
  void retry(Invocation inv) {
    List<Candidate> untried;
    try {
      untried = inv.untried(selector.select(inv.settings));
    } catch (TetherException e) {
      inv.fail(e);
      return;
    }
    if (untried.isEmpty()) {
      startNextRound(inv);
      return;
    }
    connect(inv.settings, inv.binding, untried, 1).whenComplete((connection, failure) -> {
      if (failure == null) {
        hand(inv, connection);
      } else {
        inv.onRetryConnectFailed(untried, unwrap(failure));
      }
    });
  }

  private void startNextRound(Invocation inv) {
    if (inv.round() >= config.retryIntervals().size()) {
      inv.failWithLatestCause();
      return;
    }
    Duration wait = config.retryIntervals().get(inv.round());
    inv.beginNextRound();
    trace(2, "{} of {}: every endpoint tried, round {} in {} ms", inv.operation, inv.settings.identity(),
        inv.round() + 1, wait.toMillis());
    if (wait.isZero()) {
      retry(inv);
    } else {
      schedule(() -> retry(inv), wait);
    }
  }


  private static CompletableFuture<RequestChannel> bind(CompletableFuture<RequestChannel> f, ProxyBinding binding) {
    return f.thenApply(c -> {
      binding.cache(c);
      return c;
    });
  }

  /** One walk over a proxy's endpoints, in rounds, until a connection is ready. */
  private final class Establishment {
    final CompletableFuture<RequestChannel> result = new CompletableFuture<>();
    final ProxySettings settings;
    List<Candidate> candidates;
    int index;
    int round;
    TetherException first;
    TetherException last;
    final StringBuilder tried = new StringBuilder();

    final int rounds;

    Establishment(ProxySettings settings, List<Candidate> candidates, int rounds) {
      this.settings = settings;
      this.candidates = candidates;
      this.rounds = rounds;
    }

    void tryNext() {
      if (index == candidates.size()) {
        nextRound();
        return;
      }
      Candidate c = candidates.get(index++);
      pool.obtain(c, settings.connectionId()).ready().whenComplete((conn, failure) -> {
        if (failure == null) {
          trace(2, "connected to {} for {}", c.endpoint(), settings.identity());
          result.complete(conn);
        } else {
          recordFailure(c, unwrap(failure));
          tryNext();
        }
      });
    }

    private void recordFailure(Candidate c, TetherException failure) {
      trace(2, "connect to {} failed: {}", c.endpoint(), failure.getMessage());
      tried.append(tried.length() == 0 ? "" : ", ").append(c.endpoint());
      if (first == null) {
        first = failure;
      } else if (failure != first) {
        first.addSuppressed(failure);
      }
      last = failure;
    }

    private void nextRound() {
      if (round + 1 >= rounds) {
        trace(1, "giving up on {} after {} round(s)", settings.identity(), round + 1);
        result.completeExceptionally(finalFailure());
        return;
      }
      Duration wait = config.retryIntervals().get(round++);
      Runnable again = () -> {
        try {
          candidates = selector.select(settings);
        } catch (TetherException e) {
          result.completeExceptionally(e);
          return;
        }
        index = 0;
        tryNext();
      };
      if (wait.isZero()) {
        again.run();
      } else {
        schedule(again, wait);
      }
    }

    private TetherException finalFailure() {
      String message = "cannot connect " + settings.identity() + " after " + (round + 1)
          + " round(s); tried " + tried + "; last cause: " + last.getMessage();
      TetherException ex = last instanceof ConnectTimeoutException
          ? new ConnectTimeoutException(message, last)
          : new ConnectFailedException(message, last);
      if (first != last) {
        ex.addSuppressed(first);
      }
      return ex;
    }
  }

  RetryBudget retryBudget() {
    return retryBudget;
  }

  void traceRetry(Invocation inv, dev.tether.Attempt.Outcome outcome, TetherException cause) {
    trace(2, "retrying {} of {} (retry {}) after {}: {}",
        inv.operation, inv.settings.identity(), inv.retries(), outcome, cause.getMessage());
  }

  /** The liveness rules for a connection opened with transport timeout {@code timeout}. */
  LivenessMonitor.Settings livenessSettings(Duration timeout) {
    return new LivenessMonitor.Settings(
        config.heartbeatReaderIdle().toNanos(),
        config.heartbeatIdleTimeout().toNanos(),
        timeout == null ? 0 : timeout.toNanos());
  }

  private void trace(int level, String format, Object... args) {
    if (config.traceRetry() >= level) {
      retryLog.info(format, args);
    }
  }

  static TetherException unwrap(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof java.util.concurrent.CompletionException
        || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof TetherException te ? te : new TetherException(String.valueOf(cause), cause);
  }

  Scheduler.Cancellable schedule(Runnable task, Duration delay) {
    return scheduler.schedule(task, delay.toNanos());
  }

  /** A connection that was serving broke without being asked to close: reconnect it in the background. */
  void onConnectionBroken(Candidate candidate, ConnectionKey key) {
    if (!closing) {
      reconnector.onBroken(candidate, key);
    }
  }

  /** How many broken connections are being re-established now. */
  public int reconnectingCount() {
    return reconnector.activeStreaks();
  }

  boolean isClosing() {
    return closing;
  }

  public ClientConfig config() {
    return config;
  }

  public ConnectionPool pool() {
    return pool;
  }

  public Ticker ticker() {
    return ticker;
  }

  String clientId() {
    return clientId;
  }

  int maxFrameSize() {
    return ProtocolVersion.DEFAULT_MAX_FRAME_SIZE;
  }

  /**
   * Drains like a server's graceful shutdown: no new calls, pending calls get their answers (at
   * most {@code tether.close.grace}), then every connection closes and the event loops stop.
   */
  public Future<?> shutdown() {
    closing = true;
    reconnector.close();
    pool.drainAll(config.closeGrace().toMillis());
    return transports.shutdown();
  }
}
