package dev.tether.server;

import dev.tether.ExecutionMode;
import dev.tether.ServerCallObserver;
import dev.tether.ServerInterceptor;
import dev.tether.internal.CallDeadline;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.spi.CodecException;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.transport.EventLoopScheduler;
import io.netty.channel.EventLoop;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a request to its service and runs it where the execution mode says: on the event loop
 * (DIRECT), on the server's executor (EXECUTOR), on it one at a time per connection (SERIALIZED),
 * or on a virtual thread of its own (VIRTUAL_THREADS). Answers SERVICE_NOT_FOUND /
 * OPERATION_NOT_FOUND without running anything, REMOTE_ERROR with the thrown type and message,
 * REFUSED when the queue of calls waiting for the executor is full (or the executor takes no work
 * and no worker is left to reach it), or in VIRTUAL_THREADS mode when the server already runs as
 * many calls as it may, so the client knows the request did not run.
 */
public final class Dispatcher {
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
  private static final byte[] EMPTY = new byte[0];

  /**
   * The in-flight limit of one connection unless the server sets another (WELCOME announces it).
   */
  private static final int DEFAULT_MAX_CONCURRENT_REQUESTS = 10_000;

  private final Map<String, ServiceHandler> services;
  private final ExecutionMode mode;

  /**
   * Where EXECUTOR mode's calls, SERIALIZED mode's lanes (and its datagrams) wait; null in the
   * other modes.
   */
  private final RunQueue runQueue;

  /** VIRTUAL_THREADS mode's thread per call; null in the other modes. */
  private final ThreadPerCall threadPerCall;

  private final Ticker ticker;
  private final Interceptors interceptors;

  /**
   * Sees every execution start and end; null for none, which costs an execution one read of this
   * field.
   */
  private final ServerCallObserver observer;

  public Dispatcher(
      Map<String, ServiceHandler> services, ExecutionMode mode, Executor executor, Ticker ticker) {
    this(services, mode, executor, ticker, List.of());
  }

  /**
   * @param interceptors run in order before every service call; the first that throws refuses it
   */
  public Dispatcher(
      Map<String, ServiceHandler> services,
      ExecutionMode mode,
      Executor executor,
      Ticker ticker,
      List<ServerInterceptor> interceptors) {
    this(services, mode, executor, ticker, interceptors, null, DEFAULT_MAX_CONCURRENT_REQUESTS);
  }

  /**
   * @param executor where service code runs; in VIRTUAL_THREADS mode one that starts a virtual
   *     thread per task
   * @param observer sees every execution from its start to its answer; null for none
   * @param maxConcurrentRequests the in-flight limit of one connection; in VIRTUAL_THREADS mode
   *     also how many calls run at once server-wide before new ones are refused
   */
  public Dispatcher(
      Map<String, ServiceHandler> services,
      ExecutionMode mode,
      Executor executor,
      Ticker ticker,
      List<ServerInterceptor> interceptors,
      ServerCallObserver observer,
      int maxConcurrentRequests) {
    this(
        services,
        mode,
        executor,
        ticker,
        interceptors,
        observer,
        RunQueue.DEFAULT_BOUND,
        maxConcurrentRequests);
  }

  /**
   * @param queueBound how many calls may wait for the executor before new ones are refused
   */
  Dispatcher(
      Map<String, ServiceHandler> services,
      ExecutionMode mode,
      Executor executor,
      Ticker ticker,
      List<ServerInterceptor> interceptors,
      ServerCallObserver observer,
      int queueBound,
      int maxConcurrentRequests) {
    this.observer = observer;
    this.services = Map.copyOf(services);
    this.mode = mode;
    this.runQueue =
        mode == ExecutionMode.EXECUTOR || mode == ExecutionMode.SERIALIZED
            ? new RunQueue(executor, queueBound)
            : null;
    this.threadPerCall =
        mode == ExecutionMode.VIRTUAL_THREADS
            ? new ThreadPerCall(executor, maxConcurrentRequests)
            : null;
    this.ticker = ticker;
    this.interceptors = new Interceptors(interceptors);
  }

  /** The service registered under {@code name}; null for none. */
  ServiceHandler service(String name) {
    return services.get(name);
  }

  /** The names of the services calls reach. */
  Set<String> serviceNames() {
    return services.keySet();
  }

  /** The interceptors and observer of this server's calls, which see its stream openings too. */
  public Oversight oversight() {
    return new Oversight(interceptors, observer);
  }

  /**
   * Where one connection's requests queue: a lane of its own in SERIALIZED mode, else null
   * (shared).
   */
  SerialLane newLane() {
    return mode == ExecutionMode.SERIALIZED ? new SerialLane(runQueue) : null;
  }

  /**
   * Where another protocol's service work of one connection on {@code loop} runs in this mode: the
   * loop (DIRECT), the shared run queue (EXECUTOR), a lane of the connection's own on it
   * (SERIALIZED), a virtual thread per task (VIRTUAL_THREADS); work the queue refuses is offered
   * again on {@code retry}.
   */
  Executor protocolExecutor(EventLoop loop, Scheduler retry) {
    return switch (mode) {
      case DIRECT -> loop;
      case VIRTUAL_THREADS -> threadPerCall.threads();
      case EXECUTOR ->
          ProtocolWork.through(runQueue::enqueue, runQueue, retry, new EventLoopScheduler(loop));
      case SERIALIZED ->
          ProtocolWork.through(
              new SerialLane(runQueue)::submit, runQueue, retry, new EventLoopScheduler(loop));
    };
  }

  /**
   * Where the same connection's work that may wait runs: in EXECUTOR mode on the shared run queue
   * without a wake-up of its own (see {@link RunQueue#startLazily}); in the other modes on {@code
   * eager}, the connection's {@link #protocolExecutor}, whose order (a SERIALIZED lane's) it keeps.
   */
  Executor lazyProtocolExecutor(EventLoop loop, Scheduler retry, Executor eager) {
    return mode == ExecutionMode.EXECUTOR
        ? ProtocolWork.lazilyThrough(
            runQueue::enqueue, runQueue, retry, new EventLoopScheduler(loop))
        : eager;
  }

  /**
   * {@link #dispatch(Request, Peer, Responder, SerialLane)} on the shared executor, started at once
   * (datagrams).
   */
  void dispatch(Request request, Peer remote, Responder responder) {
    dispatch(request, remote, responder, null);
    startQueued();
  }

  /** Wakes a worker for the calls queued on the shared run queue, unless one is on its way. */
  void startQueued() {
    if (runQueue != null) {
      runQueue.wakeOne();
    }
  }

  /**
   * Starts the calls {@link #dispatch(Request, Peer, Responder, SerialLane)} queued on the shared
   * run queue: a connection calls it once per read burst, with its loop's timer (see RunQueue).
   */
  void startQueued(int queued, Scheduler loopTimer) {
    if (runQueue != null) {
      runQueue.start(queued, loopTimer);
    }
  }

  /**
   * Routes a request and answers it or starts it where the mode says. Returns the call when the
   * request waits for an executor or runs on a thread of its own (then a CANCEL can still stop it),
   * else null: it was answered at once or ran on the caller's thread (DIRECT). A call queued on the
   * shared run queue (no lane) starts once the caller calls {@link #startQueued(int, Scheduler)}:
   * at most one worker wake-up per read burst.
   *
   * @param lane the connection's own lane in SERIALIZED mode, null otherwise
   */
  ServiceCall dispatch(Request request, Peer remote, Responder responder, SerialLane lane) {
    ServiceHandler service = services.get(request.service());
    if (service == null) {
      reject(request, responder, Status.SERVICE_NOT_FOUND);
    } else if (Request.PING_OPERATION.equals(request.operation())) {
      answer(request, responder, Status.OK, EMPTY, Map.of());
    } else if (!service.hasOperation(request.operation())) {
      reject(request, responder, Status.OPERATION_NOT_FOUND);
    } else if (mode == ExecutionMode.DIRECT) {
      execute(service, request, remote, responder, receivedAt(request));
    } else {
      ServiceCall call =
          new ServiceCall(this, service, request, remote, responder, receivedAt(request));
      if (threadPerCall != null) {
        threadPerCall.start(call);
      } else if (lane != null) {
        lane.submit(call);
      } else {
        runQueue.enqueue(call);
      }
      return call;
    }
    return null;
  }

  /**
   * When the request arrived, on the ticker, for its deadline; 0 for a request without one, which
   * then costs no clock read (6% of a DIRECT server's samples at 128 calls in flight were in the
   * clock).
   */
  private long receivedAt(Request request) {
    return request.deadlineMillis() > 0 ? ticker.nanoTime() : 0;
  }

  /**
   * The server drains: work queued to run when convenient (a gRPC call's completion) starts at once
   * from now on. The answer completes as {@code connections} does (true: every connection closed,
   * false: the grace ran out), and once the run queue holds nothing the close would drop.
   */
  CompletableFuture<Boolean> drain(CompletableFuture<Boolean> connections) {
    if (runQueue == null) {
      return connections;
    }
    runQueue.hurry();
    return connections.thenCompose(all -> runQueue.emptied().thenApply(empty -> all));
  }

  /** The server closes: queued calls never start, and new ones are refused. */
  void close() {
    if (runQueue != null) {
      runQueue.close();
    }
    if (threadPerCall != null) {
      threadPerCall.close();
    }
  }

  /** Answers REFUSED: the request did not run, and the client may send it anywhere. */
  static void refuse(Request request, Responder responder) {
    reject(request, responder, Status.REFUSED);
  }

  /**
   * Work that waited in the queue past its caller's deadline is not started: nobody waits for it.
   */
  void executeUnlessExpired(
      ServiceHandler service,
      Request request,
      Peer remote,
      Responder responder,
      long receivedNanos) {
    long deadline = request.deadlineMillis();
    if (deadline > 0 && ticker.nanoTime() - receivedNanos >= deadline * 1_000_000) {
      reject(request, responder, Status.DEADLINE_EXCEEDED);
      return;
    }
    execute(service, request, remote, responder, receivedNanos);
  }

  private void execute(
      ServiceHandler service,
      Request request,
      Peer remote,
      Responder connection,
      long receivedNanos) {
    long deadlineNanos =
        request.deadlineMillis() > 0 ? receivedNanos + request.deadlineMillis() * 1_000_000 : 0;
    RequestContext context = new RequestContext(request, remote, deadlineNanos, ticker);
    if (observer == null) {
      run(service, request, context, connection, deadlineNanos);
      return;
    }
    Responder watched = ObservedExecution.start(observer, context, connection);
    try (ServerCallObserver.Scope entered = ObservedExecution.enter(watched)) {
      run(service, request, context, watched, deadlineNanos);
    }
  }

  /** Runs the interceptors, then the service, and answers through {@code responder}. */
  private void run(
      ServiceHandler service,
      Request request,
      RequestContext context,
      Responder responder,
      long deadlineNanos) {
    if (!interceptors.isEmpty()) {
      Interceptors.Refusal refusal = interceptors.check(context);
      if (refusal != null) {
        answerRefusal(request, responder, refusal);
        return;
      }
    }
    Object result;
    try (CallDeadline.Scope inherited =
        deadlineNanos == 0 ? null : CallDeadline.enter(deadlineNanos, ticker)) {
      result = service.handle(request.operation(), request.body(), context);
    } catch (Throwable t) {
      answerError(request, responder, t);
      return;
    }
    if (result instanceof CompletionStage<?> stage) {
      stage.whenComplete(
          (value, failure) -> {
            if (failure != null) {
              answerError(request, responder, unwrap(failure));
            } else {
              answer(request, responder, Status.OK, (byte[]) value, Map.of());
            }
          });
    } else {
      answer(request, responder, Status.OK, result == null ? EMPTY : (byte[]) result, Map.of());
    }
  }

  private static void answerRefusal(
      Request request, Responder responder, Interceptors.Refusal refusal) {
    ObservedExecution.failing(responder, refusal.status(), refusal.why());
    answer(
        request,
        responder,
        refusal.status(),
        EMPTY,
        Map.of(Response.ERROR_MESSAGE, refusal.message()));
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }

  /**
   * The service threw: REMOTE_ERROR with its type and message. A codec failure happened in the
   * server's own machinery (arguments or result that do not translate): INTERNAL.
   */
  private void answerError(Request request, Responder responder, Throwable t) {
    if (request.isOneway()) {
      log.debug("oneway {}.{} failed", request.service(), request.operation(), t);
    }
    Status status = t instanceof CodecException ? Status.INTERNAL : Status.REMOTE_ERROR;
    ObservedExecution.failing(responder, status, t);
    answer(
        request,
        responder,
        status,
        EMPTY,
        Map.of(
            Response.ERROR_TYPE,
            t.getClass().getName(),
            Response.ERROR_MESSAGE,
            t.getMessage() == null ? "" : t.getMessage()));
  }

  private static void reject(Request request, Responder responder, Status status) {
    answer(request, responder, status, EMPTY, Map.of());
  }

  private static void answer(
      Request request,
      Responder responder,
      Status status,
      byte[] body,
      Map<String, String> metadata) {
    if (request.isOneway()) {
      responder.onewayDone();
    } else {
      // The request's COMPRESSED bit asks for a compressed reply; the connection decides if it is
      // worth it.
      responder.respond(
          new Response(
              request.requestId(), request.flags() & Request.COMPRESSED, status, metadata, body));
    }
  }
}
