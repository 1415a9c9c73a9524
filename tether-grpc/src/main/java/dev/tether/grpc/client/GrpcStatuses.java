package dev.tether.grpc.client;

import dev.tether.AttemptTimeoutException;
import dev.tether.ConnectFailedException;
import dev.tether.ConnectionLostException;
import dev.tether.FailedAnswerException;
import dev.tether.InvocationTimeoutException;
import dev.tether.NoAvailableNodeException;
import dev.tether.NoEndpointException;
import dev.tether.PermissionDeniedException;
import dev.tether.ProtocolException;
import dev.tether.RequestRefusedException;
import dev.tether.RequestTooLargeException;
import dev.tether.TetherException;
import dev.tether.grpc.GrpcHeaders;
import dev.tether.spi.ClientWireProtocol;
import io.grpc.Status;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/**
 * The statuses a call through Tether's channel ends with: the server's, read from its trailers, or,
 * when no answer came, the one that stands for the runtime's failure (the table in docs/guide.md,
 * "gRPC"). The failure itself is the status's cause, so {@code mayHaveExecuted()} and the attempts
 * stay readable.
 */
final class GrpcStatuses {
  private GrpcStatuses() {}

  /** The server's status: {@code grpc-status} and its percent-decoded {@code grpc-message}. */
  static Status ofTrailers(Http2Headers trailers) {
    CharSequence code = trailers.get(GrpcHeaders.STATUS);
    Status status;
    try {
      status = Status.fromCodeValue(Integer.parseInt(code.toString()));
    } catch (RuntimeException badCode) {
      return Status.INTERNAL.withDescription("malformed grpc-status: " + code);
    }
    CharSequence message = trailers.get(GrpcHeaders.MESSAGE);
    return message == null ? status : status.withDescription(percentDecode(message.toString()));
  }

  /**
   * What an answer's {@code grpc-status} says of the server that gave it, for its node group's
   * outlier detection (the table in docs/guide.md, "gRPC"): the server failing around the service
   * (INTERNAL, UNAVAILABLE, DATA_LOSS, DEADLINE_EXCEEDED) is its fault; a failure of the service
   * itself or of its guard (UNKNOWN, which a service's unhandled exception becomes,
   * PERMISSION_DENIED, UNAUTHENTICATED) counts only as far as it stands out from the node's peers;
   * the statuses a service chooses to answer (NOT_FOUND, INVALID_ARGUMENT, ...) say nothing against
   * it.
   */
  static ClientWireProtocol.Blame blameOf(Http2Headers trailers) {
    CharSequence code = trailers.get(GrpcHeaders.STATUS);
    if (code == null || (code.length() == 1 && code.charAt(0) == '0')) {
      return ClientWireProtocol.Blame.NONE;
    }
    Status.Code c;
    try {
      c = Status.fromCodeValue(Integer.parseInt(code.toString())).getCode();
    } catch (NumberFormatException malformed) {
      return ClientWireProtocol.Blame.NODE_FAULT; // read as INTERNAL, as ofTrailers does
    }
    return switch (c) {
      case INTERNAL, UNAVAILABLE, DATA_LOSS, DEADLINE_EXCEEDED ->
          ClientWireProtocol.Blame.NODE_FAULT;
      case UNKNOWN, PERMISSION_DENIED, UNAUTHENTICATED -> ClientWireProtocol.Blame.FAILED_ANSWER;
      default -> ClientWireProtocol.Blame.NONE;
    };
  }

  /**
   * Ends the runtime's {@code call} with the server's answer: an OK one as an answer; any other as
   * a failed answer, which the runtime retries elsewhere first when its status is {@link
   * #retryable} and the method idempotent.
   */
  static void endCall(ClientWireProtocol.Call call, byte[] body, Http2Headers trailers) {
    CharSequence code = trailers.get(GrpcHeaders.STATUS);
    if (code != null && code.length() == 1 && code.charAt(0) == '0') {
      call.onAnswer(body, ClientWireProtocol.Blame.NONE);
      return;
    }
    Status status = ofTrailers(trailers);
    call.onFailedAnswer(
        body,
        blameOf(trailers),
        status.getCode().name(),
        status.getDescription(),
        retryable(status.getCode()));
  }

  /**
   * Whether an answered status says another server may serve the call (the table in docs/guide.md,
   * "gRPC"): UNAVAILABLE alone, the status gRPC's own retry policies list, which a server that is
   * shutting down answers and a proxy in front of it gives for HTTP 429, 502, 503 and 504. The
   * others are the service's word or a fault that would repeat elsewhere.
   */
  static boolean retryable(Status.Code code) {
    return code == Status.Code.UNAVAILABLE;
  }

  /** The failed answer behind {@code failure}, or null when the runtime ended the call itself. */
  static FailedAnswerException failedAnswer(Throwable failure) {
    Throwable t =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return t instanceof FailedAnswerException answered ? answered : null;
  }

  /** The status of a call the runtime ended without an answer. */
  static Status ofFailure(Throwable failure) {
    Throwable t =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return codeOf(t).toStatus().withDescription(t.getMessage()).withCause(t);
  }

  private static Status.Code codeOf(Throwable t) {
    if (t instanceof CancellationException) {
      return Status.Code.CANCELLED;
    }
    if (t instanceof InvocationTimeoutException || t instanceof AttemptTimeoutException) {
      return Status.Code.DEADLINE_EXCEEDED;
    }
    if (t instanceof ConnectionLostException
        || t instanceof ConnectFailedException
        || t instanceof NoEndpointException
        || t instanceof NoAvailableNodeException
        || t instanceof RequestRefusedException) {
      return Status.Code.UNAVAILABLE;
    }
    if (t instanceof PermissionDeniedException) {
      return Status.Code.PERMISSION_DENIED;
    }
    if (t instanceof RequestTooLargeException) {
      return Status.Code.RESOURCE_EXHAUSTED;
    }
    if (t instanceof ProtocolException) {
      return Status.Code.INTERNAL;
    }
    // The runtime closed, or another refusal before any server saw the call.
    return t instanceof TetherException ? Status.Code.UNAVAILABLE : Status.Code.INTERNAL;
  }

  /** {@code %XX} back to bytes, the whole read as UTF-8; a malformed escape stays as it is. */
  static String percentDecode(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length() && isHex(s, i + 1) && isHex(s, i + 2)) {
        out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        out.write(c);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static boolean isHex(String s, int i) {
    return Character.digit(s.charAt(i), 16) >= 0;
  }
}
