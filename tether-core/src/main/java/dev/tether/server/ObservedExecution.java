package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.ServerCallObserver;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One execution a {@link ServerCallObserver} watches: it stands between the dispatcher and the
 * request's real responder, so the observer hears the outcome exactly when the answer leaves,
 * whichever thread decides it (the service's, or a future's). Made only when the server has an
 * observer; what the observer throws is logged and swallowed.
 */
final class ObservedExecution implements Responder {
  private static final Logger log = LoggerFactory.getLogger(ObservedExecution.class);

  private final Responder next;
  private final ServerCallObserver.Execution execution;

  /**
   * What the service or an interceptor threw; set just before the answer, on the thread that
   * answers.
   */
  private Throwable failure;

  private Status failureStatus = Status.OK;

  private ObservedExecution(Responder next, ServerCallObserver.Execution execution) {
    this.next = next;
    this.execution = execution;
  }

  /** Tells {@code observer} the request starts; the responder to answer it through. */
  static Responder start(ServerCallObserver observer, RequestContext call, Responder next) {
    ServerCallObserver.Execution execution = watch(observer, call);
    return execution == null ? next : new ObservedExecution(next, execution);
  }

  /**
   * Lets the observer open what it keeps open while the service runs (on the service's thread);
   * null for nothing.
   */
  static ServerCallObserver.Scope enter(Responder responder) {
    return responder instanceof ObservedExecution watched ? enter(watched.execution) : null;
  }

  /**
   * Tells {@code observer} (null for none) that {@code call} starts: what hears its end, or null
   * when there is none or the observer failed. Calls and stream openings alike.
   */
  static ServerCallObserver.Execution watch(ServerCallObserver observer, CallContext call) {
    if (observer == null) {
      return null;
    }
    try {
      return observer.onExecution(call);
    } catch (RuntimeException e) {
      log.warn(
          "server call observer {} failed on {}.{}", observer, call.service(), call.operation(), e);
      return null;
    }
  }

  /**
   * What {@code execution} (null for none) keeps open while the service runs here; null for
   * nothing.
   */
  static ServerCallObserver.Scope enter(ServerCallObserver.Execution execution) {
    if (execution == null) {
      return null;
    }
    try {
      return execution.enter();
    } catch (RuntimeException e) {
      log.warn("server call observer's execution failed to enter", e);
      return null;
    }
  }

  /** Tells {@code execution} (null for none) how it ended. */
  static void end(ServerCallObserver.Execution execution, String status, Throwable failure) {
    if (execution == null) {
      return;
    }
    try {
      execution.onEnd(status, failure);
    } catch (RuntimeException e) {
      log.warn("server call observer's execution failed at its end", e);
    }
  }

  /**
   * The answer about to go is a failure: {@code why} was thrown, and the status says how it is
   * reported.
   */
  static void failing(Responder responder, Status status, Throwable why) {
    if (responder instanceof ObservedExecution watched) {
      watched.failure = why;
      watched.failureStatus = status;
    }
  }

  @Override
  public void respond(Response response) {
    end(response.status());
    next.respond(response);
  }

  @Override
  public void onewayDone() {
    end(failureStatus);
    next.onewayDone();
  }

  private void end(Status status) {
    end(execution, status.name(), failure);
  }
}
