package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.AttemptTimeoutException;
import dev.tether.ConnectionLostException;
import dev.tether.InvocationTimeoutException;
import dev.tether.NoAvailableNodeException;
import dev.tether.OperationNotFoundException;
import dev.tether.PermissionDeniedException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import dev.tether.ServiceNotFoundException;
import dev.tether.StreamLostException;
import dev.tether.TetherException;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What became of one attempt, as pure functions of what happened to it: which {@link
 * Attempt.Outcome} a failure is, which {@link RetryPolicy} then judges under the at-most-once rule
 * (a request that provably did not run may be retried; one that may have run, only when
 * idempotent), and the exception the caller gets. No state, no clock, no socket: the table of
 * failures is tested as a table.
 */
final class AttemptOutcomes {
  private AttemptOutcomes() {}

  /**
   * The outcome of an attempt whose connection closed before its answer: whether the whole frame
   * had reached the kernel decides whether the server may have run it.
   */
  static Attempt.Outcome ofLostConnection(boolean sent) {
    return sent ? Attempt.Outcome.LOST_AFTER_SEND : Attempt.Outcome.NOT_SENT;
  }

  /**
   * The outcome of an attempt the server answered with {@code status}, for the retry policy; null
   * when the answer ends the call, never retried: a success, the service's own error, a refused
   * permission, or a deadline the server saw pass.
   */
  static Attempt.Outcome ofAnswer(Status status) {
    return switch (status) {
      // The server proved it did not run the request.
      case REFUSED -> Attempt.Outcome.REFUSED;
      // The server ran nothing; a peer deployed with the service may serve it.
      case SERVICE_NOT_FOUND, OPERATION_NOT_FOUND -> Attempt.Outcome.NOT_FOUND;
      // The server failed around the service: it may have run it.
      case INTERNAL -> Attempt.Outcome.SERVER_FAILED;
      case OK, REMOTE_ERROR, DEADLINE_EXCEEDED, PERMISSION_DENIED, STREAM_LOST -> null;
    };
  }

  /**
   * What the answer says of the node, for its group's outlier detection: the server's own failure
   * makes a streak, the service's (or its guard's) is compared with the node's peers.
   */
  static AnswerBlame blamesTheNode(Status status) {
    return switch (status) {
      case DEADLINE_EXCEEDED, INTERNAL -> AnswerBlame.NODE_FAULT;
      case REMOTE_ERROR, PERMISSION_DENIED -> AnswerBlame.FAILED_ANSWER;
      case OK, REFUSED, SERVICE_NOT_FOUND, OPERATION_NOT_FOUND, STREAM_LOST -> AnswerBlame.NONE;
    };
  }

  /** The failure a non-OK answer means; {@code where} names the connection that carried it. */
  static TetherException failureOf(
      Status status,
      Map<String, String> metadata,
      String identity,
      String operation,
      String where) {
    return switch (status) {
      case REMOTE_ERROR ->
          new RemoteException(
              metadata.getOrDefault(Response.ERROR_TYPE, "unknown"),
              metadata.getOrDefault(Response.ERROR_MESSAGE, ""));
      case SERVICE_NOT_FOUND ->
          new ServiceNotFoundException("no service \"" + identity + "\" on " + where);
      case OPERATION_NOT_FOUND ->
          new OperationNotFoundException(
              "service \"" + identity + "\" has no operation \"" + operation + "\" on " + where);
      case REFUSED -> refused("the server refused the request on " + where, operation);
      case DEADLINE_EXCEEDED ->
          new InvocationTimeoutException(
              "the server saw the deadline of " + operation + " pass before running it");
      case INTERNAL ->
          new TetherException(
              "the server failed: "
                  + metadata.getOrDefault(Response.ERROR_MESSAGE, "internal error"));
      case PERMISSION_DENIED ->
          new PermissionDeniedException(
              "the server refused "
                  + operation
                  + " of \""
                  + identity
                  + "\": "
                  + metadata.getOrDefault(Response.ERROR_MESSAGE, "permission denied"));
      case STREAM_LOST ->
          new StreamLostException(
              "the server cannot carry "
                  + operation
                  + " of \""
                  + identity
                  + "\" on: "
                  + metadata.getOrDefault(Response.ERROR_MESSAGE, "stream lost"),
              0);
      case OK -> throw new IllegalArgumentException("an OK answer is no failure");
    };
  }

  /**
   * The failure of a call that every node it tried answered with no such service or operation,
   * naming those servers ({@code where}, in the order they answered); {@code latest} is the last
   * such answer, whose kind the failure keeps.
   */
  static TetherException notFoundOnAny(
      TetherException latest, String identity, String operation, List<String> where) {
    String servers = " on any of the " + where.size() + " nodes tried: " + String.join(", ", where);
    if (latest instanceof OperationNotFoundException) {
      return new OperationNotFoundException(
          "service \"" + identity + "\" has no operation \"" + operation + "\"" + servers, latest);
    }
    return new ServiceNotFoundException("no service \"" + identity + "\"" + servers, latest);
  }

  /** The server proved it did not run the request. */
  static RequestRefusedException refused(String why, String operation) {
    return new RequestRefusedException(why + " (" + operation + ")");
  }

  /**
   * The failure of an attempt whose connection ({@code where}) closed before its answer; it says
   * the server may have run the request exactly when the request was {@code sent}.
   */
  static ConnectionLostException lostConnection(
      boolean sent, String where, String operation, Throwable cause) {
    String what =
        sent
            ? " lost after " + operation + " was sent: "
            : " failed before " + operation + " was sent: ";
    return new ConnectionLostException(
        "connection " + where + what + CloseCause.describe(cause), sent, cause);
  }

  /**
   * No answer within the attempt timeout; the request was written, so the server may have run it.
   */
  static AttemptTimeoutException attemptTimedOut(String operation, Duration limit, String where) {
    return new AttemptTimeoutException(
        operation
            + " got no answer within the attempt timeout of "
            + limit.toMillis()
            + " ms on "
            + where
            + "; the server may have run it");
  }

  /** Why a call that found no connection ended: the runtime closed; {@code cause} says how. */
  static TetherException closedBeforeConnected(String call, Throwable cause) {
    return new TetherException("the Tether runtime closed before " + call + " connected", cause);
  }

  /** Why a call that waited for ready got no connection before its deadline. */
  static TetherException notReady(String identity) {
    return new NoAvailableNodeException(
        "no node or endpoint of " + identity + " was ready before the deadline");
  }

  /**
   * How a timeout says the deadline passed: its own invocation timeout ({@code limit}), or one it
   * inherited (null).
   */
  static String noAnswer(String operation, Duration limit) {
    return operation
        + " got no answer "
        + (limit != null
            ? "within " + limit.toMillis() + " ms"
            : "before the deadline it inherited from the service that made it");
  }
}
