package dev.tether.opentelemetry;

import dev.tether.AttemptTimeoutException;
import dev.tether.FailedAnswerException;
import dev.tether.InvocationTimeoutException;
import dev.tether.OperationNotFoundException;
import dev.tether.PermissionDeniedException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import dev.tether.ServiceNotFoundException;
import java.util.Set;
import java.util.concurrent.CancellationException;

/**
 * What a call's outcome is called on its CLIENT span, as a pure function: {@code rpc.status_code}
 * is the status the server answered (the names of Tether's wire statuses, or of another protocol's,
 * such as gRPC's {@code UNAVAILABLE}: every one but OK fails a CLIENT span) or, when the call
 * failed before any answer, the kind of exception ({@code ConnectionLostException} is {@code
 * CONNECTION_LOST}); {@code error.type} is that status when the server answered, else the
 * exception's class name, as the conventions ask.
 */
record RpcStatus(String code, String errorType) {
  static final RpcStatus OK = new RpcStatus("OK", null);

  /**
   * The gRPC statuses OpenTelemetry's gRPC conventions count as the server's error on a SERVER span
   * (on a CLIENT span every status but OK is one).
   */
  private static final Set<String> GRPC_SERVER_ERRORS =
      Set.of(
          "UNKNOWN", "DEADLINE_EXCEEDED", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS");

  /**
   * Whether {@code status}, sent back by a server in {@code protocol}, fails its SERVER span: every
   * Tether status but OK; of gRPC's only those the conventions count as the server's error (a
   * NOT_FOUND the service chose to answer is no failure of the server's).
   */
  static boolean failsServerSpan(String protocol, String status) {
    if ("grpc".equals(protocol)) {
      return GRPC_SERVER_ERRORS.contains(status);
    }
    return !"OK".equals(status);
  }

  /** The status of a call that ended with {@code failure}; null means it succeeded. */
  static RpcStatus of(Throwable failure) {
    if (failure == null) {
      return OK;
    }
    String answered = answeredStatus(failure);
    if (answered != null) {
      return new RpcStatus(answered, answered);
    }
    return new RpcStatus(kindOf(failure), failure.getClass().getName());
  }

  /** The server's status that {@code failure} reports, or null when no server answered it. */
  private static String answeredStatus(Throwable failure) {
    if (failure instanceof FailedAnswerException answer) {
      return answer.status();
    } else if (failure instanceof RemoteException) {
      return "REMOTE_ERROR";
    } else if (failure instanceof ServiceNotFoundException) {
      return "SERVICE_NOT_FOUND";
    } else if (failure instanceof OperationNotFoundException) {
      return "OPERATION_NOT_FOUND";
    } else if (failure instanceof PermissionDeniedException) {
      return "PERMISSION_DENIED";
    } else if (failure instanceof RequestRefusedException) {
      return "REFUSED";
    }
    return null;
  }

  /**
   * A failure without an answer, by kind: the class name in upper snake case, without "Exception".
   */
  private static String kindOf(Throwable failure) {
    if (failure instanceof InvocationTimeoutException
        || failure instanceof AttemptTimeoutException) {
      return "DEADLINE_EXCEEDED";
    } else if (failure instanceof CancellationException) {
      return "CANCELLED";
    }
    String name = failure.getClass().getSimpleName().replaceFirst("Exception$", "");
    String snake = name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT);
    return snake.isEmpty() || snake.equals("TETHER") ? "FAILED" : snake;
  }
}
