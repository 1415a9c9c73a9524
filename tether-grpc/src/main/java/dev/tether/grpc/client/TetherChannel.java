package dev.tether.grpc.client;

import dev.tether.Endpoint;
import dev.tether.Proxy;
import dev.tether.spi.Scheduler;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A grpc-java {@link ManagedChannel} whose calls a Tether proxy places: the proxy's endpoints,
 * endpoint selection, load balancing, connection reuse and supervision, backoff and the
 * at-most-once rule apply to every call, over connections the runtime owns that speak gRPC. The
 * channel does not own the proxy's runtime: {@link #shutdown()} lets the channel's calls finish and
 * refuses new ones, and closing the {@code Tether} stays its owner's job.
 */
public final class TetherChannel extends ManagedChannel {
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final Proxy proxy;

  /** The pool behind {@link #listeners}, which also keeps the channel's timers' tasks. */
  private final ExecutorService executor;

  /** Runs listeners of calls whose CallOptions name no executor, on {@link #executor}. */
  private final ListenerRuns listeners;

  /** One for every call: see {@link #retryLater()}. */
  private final Scheduler retryLater =
      (task, delayNanos) -> {
        afterNanos(delayNanos, task);
        return () -> {};
      };

  private final Set<TetherClientCall<?, ?>> calls = ConcurrentHashMap.newKeySet();
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private volatile boolean shutdown;

  private TetherChannel(Proxy proxy, GrpcClientProtocol protocol) {
    this.proxy = proxy.withWireProtocol(protocol);
    this.executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "tether-grpc-call-" + THREADS.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.listeners =
        new ListenerRuns(
            executor,
            CompletableFuture.delayedExecutor(
                ListenerRuns.STALL_CHECK_NANOS, TimeUnit.NANOSECONDS, Runnable::run));
  }

  /** A channel whose calls go through {@code proxy}; see {@code TetherGrpc.channel}. */
  public static TetherChannel over(Proxy proxy) {
    return new TetherChannel(proxy, GrpcClientProtocol.INSTANCE);
  }

  /**
   * A channel whose connections ping their servers (gRFC A8 keepalive) after {@code keepaliveTime}
   * without reads while calls are open, and count a server dead when a PING's answer takes longer
   * than {@code keepaliveTimeout}: its calls then end as on a lost connection (the idempotent ones
   * move on). A server that answers "too_many_pings" doubles the time.
   */
  public static TetherChannel over(Proxy proxy, Duration keepaliveTime, Duration keepaliveTimeout) {
    if (keepaliveTime.isNegative()
        || keepaliveTime.isZero()
        || keepaliveTimeout.isNegative()
        || keepaliveTimeout.isZero()) {
      throw new IllegalArgumentException(
          "keepalive time and timeout must be positive: "
              + keepaliveTime
              + ", "
              + keepaliveTimeout);
    }
    return new TetherChannel(
        proxy, new GrpcClientProtocol(new KeepalivePolicy(keepaliveTime, keepaliveTimeout)));
  }

  Proxy proxy() {
    return proxy;
  }

  /**
   * Where a listener's events wait when the call's executor refused them (every thread busy): a
   * moment later, offered again. The JDK's shared delayer keeps the time; no thread of ours.
   */
  Scheduler retryLater() {
    return retryLater;
  }

  /**
   * Runs {@code task} on the channel's executor after {@code delayNanos}; the JDK's shared delayer
   * keeps the time. The task must tolerate running after its call ended.
   */
  void afterNanos(long delayNanos, Runnable task) {
    CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS, executor).execute(task);
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    Executor runs = callOptions.getExecutor() != null ? callOptions.getExecutor() : listeners;
    return new TetherClientCall<>(this, method, callOptions, runs);
  }

  /** The call starts; false when the channel is shut down and refuses it. */
  boolean callStarted(TetherClientCall<?, ?> call) {
    calls.add(call);
    if (shutdown) {
      calls.remove(call);
      terminateIfDone();
      return false;
    }
    return true;
  }

  void callEnded(TetherClientCall<?, ?> call) {
    calls.remove(call);
    terminateIfDone();
  }

  private void terminateIfDone() {
    if (shutdown && calls.isEmpty() && !terminated.isDone()) {
      executor.shutdown();
      terminated.complete(null);
    }
  }

  /** The first endpoint as {@code host:port}, as gRPC's authority. */
  @Override
  public String authority() {
    List<Endpoint> endpoints = proxy.endpoints();
    if (endpoints.isEmpty()) {
      return proxy.identity();
    }
    Endpoint e = endpoints.get(0);
    return e.host() + ":" + e.port();
  }

  /** No new calls; those already started finish. Terminated once the last one ends. */
  @Override
  public ManagedChannel shutdown() {
    shutdown = true;
    terminateIfDone();
    return this;
  }

  /** As {@link #shutdown()}, and the calls still running are cancelled. */
  @Override
  public ManagedChannel shutdownNow() {
    shutdown();
    for (TetherClientCall<?, ?> call : calls) {
      call.cancel("the channel was shut down now", null);
    }
    return this;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return terminated.isDone();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    try {
      terminated.get(timeout, unit);
      return true;
    } catch (TimeoutException notYet) {
      return false;
    } catch (ExecutionException cannotHappen) {
      throw new IllegalStateException(cannotHappen);
    }
  }

  @Override
  public String toString() {
    return "TetherChannel(" + proxy + ")";
  }

  /** What a call refused by a shut down channel ends with, as on grpc-java's own channel. */
  static Status refusedByShutdown() {
    return Status.UNAVAILABLE.withDescription("the channel is shut down");
  }
}
