package dev.tether.server;

import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One accepted request that waits for, or runs on, a service executor; it stands between the
 * service and the connection's responder so that a CANCEL can stop it. A call cancelled while
 * queued never runs; one cancelled while running runs to its end and its answer is dropped.
 *
 * <p>Ownership: the connection's loop cancels, an executor thread starts and answers, so each
 * transition is one compare-and-set in {@link #transition}, as the client's Invocation does: one
 * thread wins each, and the connection hears exactly one outcome (an answer, or "nothing to send").
 */
final class ServiceCall implements QueuedWork, Responder {
  /** Where the call is. */
  enum State {
    /** Handed to an executor or a serialized lane; not started. */
    QUEUED,
    /** The service (or the refusal) is being produced. */
    RUNNING,
    /** Answered, or told the connection it has nothing to send; terminal. */
    DONE,
    /** The client cancelled: it never starts, or its answer is dropped; terminal. */
    CANCELLED
  }

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(ServiceCall.class, "state", State.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Dispatcher dispatcher;
  private final ServiceHandler service;
  final Request request;
  private final Peer remote;

  /**
   * When the request was read, on the dispatcher's ticker: a call queued past its deadline is not
   * started.
   */
  private final long receivedNanos;

  private final Responder connection;

  /** Changed only through {@link #transition}. */
  @SuppressWarnings("unused")
  private volatile State state = State.QUEUED;

  ServiceCall(
      Dispatcher dispatcher,
      ServiceHandler service,
      Request request,
      Peer remote,
      Responder connection,
      long receivedNanos) {
    this.dispatcher = dispatcher;
    this.service = service;
    this.request = request;
    this.remote = remote;
    this.connection = connection;
    this.receivedNanos = receivedNanos;
  }

  private boolean transition(State from, State to) {
    return STATE.compareAndSet(this, from, to);
  }

  State state() {
    return (State) STATE.getVolatile(this);
  }

  /** On an executor thread: runs the work unless the call was cancelled while it waited. */
  @Override
  public void run() {
    if (!transition(State.QUEUED, State.RUNNING)) {
      connection.onewayDone(); // cancelled before it started: nothing runs, nothing is sent
      return;
    }
    dispatcher.executeUnlessExpired(service, request, remote, this, receivedNanos);
  }

  /**
   * The client sent CANCEL (on the connection's loop). True when the call had not started and now
   * never will; false when it runs or ran, and then its answer, if any is still to come, is
   * dropped.
   */
  boolean cancel() {
    if (transition(State.QUEUED, State.CANCELLED)) {
      return true;
    }
    transition(State.RUNNING, State.CANCELLED);
    return false;
  }

  /** The answer: written unless the client cancelled meanwhile. */
  @Override
  public void respond(Response response) {
    if (transition(State.RUNNING, State.DONE)) {
      connection.respond(response);
    } else {
      connection.onewayDone();
    }
  }

  @Override
  public void onewayDone() {
    transition(State.RUNNING, State.DONE);
    connection.onewayDone();
  }

  /**
   * The executor would not take the call: it is answered REFUSED (the client may retry it anywhere)
   * without running, unless the client cancelled it first.
   */
  @Override
  public void refuse() {
    if (transition(State.QUEUED, State.RUNNING)) {
      Dispatcher.refuse(request, this);
    } else {
      connection.onewayDone();
    }
  }
}
