package dev.tether.chaos;

import dev.tether.EndpointSelection;
import dev.tether.Idempotency;
import dev.tether.InvocationMode;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The chaos load: {@code workers} threads, each paced to its share of the target rate, making a
 * seeded mix of every {@link CallKind} until the deadline or its call budget, whichever comes
 * first. Every call is opened in the ledger before it is made and closed with what its caller was
 * told; async calls are closed by their future, bounded in number in flight.
 */
public final class LoadMix {
  /** How often each kind is drawn, in {@link CallKind} order. */
  private static final int[] WEIGHTS = {20, 15, 15, 10, 10, 10, 10, 10};

  private static final int MAX_ASYNC_IN_FLIGHT = 64;

  /** The connection ids the load's proxies use: the default one and {@code "primary"}. */
  static final int CONNECTION_IDS = 2;

  private static final int MAX_SERVICE_MILLIS = 20;

  private final Ledger ledger;
  private final NodeHealth health;
  private final LongSupplier nanoClock;
  private final Semaphore asyncSlots = new Semaphore(MAX_ASYNC_IN_FLIGHT);
  private final Proxy balancedIdempotent;
  private final Proxy balanced;
  private final Proxy oneway;
  private final Proxy primary;
  private final Proxy primaryIdempotent;
  private final Duration callTimeout;
  private final WorkerThreads threads;
  private volatile boolean stopRequested;

  /**
   * @param proxyString the cluster's proxy string, every node's endpoint
   * @param attemptTimeout bounds each attempt of an idempotent call, so a frozen node costs a retry
   */
  public LoadMix(
      Tether tether,
      String proxyString,
      Ledger ledger,
      NodeHealth health,
      Duration callTimeout,
      Duration attemptTimeout,
      LongSupplier nanoClock) {
    this.ledger = ledger;
    this.health = health;
    this.nanoClock = nanoClock;
    this.threads = new WorkerThreads(nanoClock);
    this.callTimeout = callTimeout;
    this.balanced =
        tether
            .proxy(proxyString)
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withInvocationTimeout(callTimeout);
    this.balancedIdempotent = balanced.withAttemptTimeout(attemptTimeout);
    this.oneway = balanced.withMode(InvocationMode.ONEWAY);
    // Pinned (the default) and ordered: it follows the primary the servers announce, then its
    // alternates.
    this.primary =
        tether
            .proxy(proxyString)
            .withEndpointSelection(EndpointSelection.ORDERED)
            .withConnectionId("primary")
            .withInvocationTimeout(callTimeout)
            .withMaxRerouteRetries(20)
            .withRerouteRetryInterval(Duration.ofMillis(100));
    this.primaryIdempotent = primary.withAttemptTimeout(attemptTimeout);
  }

  /**
   * Starts the workers. Each makes at most {@code callsPerWorker} calls, paced to {@code
   * ratePerSecond / workers} a second, and stops by {@code deadlineNanos} on the clock.
   */
  public void start(
      long seed, int workers, double ratePerSecond, long callsPerWorker, long deadlineNanos) {
    long intervalNanos = (long) (TimeUnit.SECONDS.toNanos(1) * workers / ratePerSecond);
    for (int w = 0; w < workers; w++) {
      Random random = new Random(seed * 31 + w);
      Proxy session = primary.withSession("chaos-session-" + w);
      threads.start(
          "chaos-load-" + w,
          () -> work(random, session, intervalNanos, callsPerWorker, deadlineNanos));
    }
  }

  /** Tells the workers to stop after their current call. */
  public void requestStop() {
    stopRequested = true;
  }

  /** Waits at most {@code patience} for every worker to end; false when one is still in a call. */
  public boolean awaitStopped(Duration patience) throws InterruptedException {
    return threads.awaitStopped(patience);
  }

  private void work(
      Random random, Proxy session, long intervalNanos, long maxCalls, long deadlineNanos) {
    long next = nanoClock.getAsLong();
    for (long i = 0;
        i < maxCalls && !stopRequested && nanoClock.getAsLong() - deadlineNanos < 0;
        i++) {
      // Pacing of a load generator, not a wait for a result.
      long wait = next - nanoClock.getAsLong();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      next += intervalNanos;
      CallKind kind = draw(random);
      int id = ledger.open(kind, health.noneUp());
      if (id < 0) {
        return;
      }
      byte[] payload = ChaosService.payload(id, random.nextInt(MAX_SERVICE_MILLIS + 1));
      call(kind, id, payload, session);
    }
  }

  private void call(CallKind kind, int id, byte[] payload, Proxy session) {
    switch (kind) {
      case BLOCKING_IDEMPOTENT -> blocking(id, balancedIdempotent, payload, Idempotency.IDEMPOTENT);
      case BLOCKING_NON_IDEMPOTENT -> blocking(id, balanced, payload, Idempotency.NOT_IDEMPOTENT);
      case ASYNC_IDEMPOTENT -> async(id, balancedIdempotent, payload, Idempotency.IDEMPOTENT);
      case ASYNC_NON_IDEMPOTENT -> async(id, balanced, payload, Idempotency.NOT_IDEMPOTENT);
      case ONEWAY -> blocking(id, oneway, payload, Idempotency.NOT_IDEMPOTENT);
      case SESSION -> blocking(id, session, payload, Idempotency.NOT_IDEMPOTENT);
      case PRIMARY_IDEMPOTENT -> blocking(id, primaryIdempotent, payload, Idempotency.IDEMPOTENT);
      case PRIMARY_NON_IDEMPOTENT -> blocking(id, primary, payload, Idempotency.NOT_IDEMPOTENT);
    }
  }

  private void blocking(int id, Proxy proxy, byte[] payload, Idempotency idempotency) {
    try {
      proxy.invoke(ChaosService.OPERATION, payload, idempotency);
      ledger.close(id, null);
    } catch (RuntimeException e) {
      ledger.close(id, e);
    }
  }

  private void async(int id, Proxy proxy, byte[] payload, Idempotency idempotency) {
    boolean slot;
    try {
      slot = asyncSlots.tryAcquire(callTimeout.toNanos() * 2, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      slot = false;
    }
    if (!slot) {
      // Every slot is held by a call that has not completed in twice its timeout: it stays pending,
      // and the ledger reports the ones that never complete.
      ledger.close(
          id, new IllegalStateException("no async slot: " + MAX_ASYNC_IN_FLIGHT + " calls stuck"));
      return;
    }
    CompletableFuture<byte[]> f;
    try {
      f = proxy.invokeAsync(ChaosService.OPERATION, payload, idempotency);
    } catch (RuntimeException e) {
      asyncSlots.release();
      ledger.close(id, e);
      return;
    }
    f.whenComplete(
        (reply, failure) -> {
          asyncSlots.release();
          ledger.close(id, failure);
        });
  }

  private static CallKind draw(Random random) {
    int total = 0;
    for (int w : WEIGHTS) {
      total += w;
    }
    int r = random.nextInt(total);
    for (int k = 0; k < WEIGHTS.length; k++) {
      r -= WEIGHTS[k];
      if (r < 0) {
        return CallKind.values()[k];
      }
    }
    throw new AssertionError();
  }
}
