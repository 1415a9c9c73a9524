package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.FailedAnswerException;
import dev.tether.protocol.Request;
import dev.tether.protocol.Status;
import dev.tether.spi.ClientWireProtocol;
import java.util.Map;

/**
 * One attempt as a {@link ClientWireProtocol} link sees it: the request, and the endings that tell
 * the attempt what became of it, so the at-most-once rule decides from what the protocol proved
 * (written or not, refused, answered). Its connection's loop only; after the first ending the
 * others are ignored.
 */
final class LinkedCall implements ClientWireProtocol.Call {
  private final ProtocolConnection connection;
  final CallAttempt attempt;
  private final Request request;

  /** True once an ending was taken or the runtime forgot the call. */
  private boolean ended;

  /** An accepted stream's node router until its end is told; guarded by this. */
  private NodeRouter streamRouter;

  LinkedCall(ProtocolConnection connection, CallAttempt attempt, Request request) {
    this.connection = connection;
    this.attempt = attempt;
    this.request = request;
  }

  @Override
  public String service() {
    return request.service();
  }

  @Override
  public String operation() {
    return request.operation();
  }

  @Override
  public Map<String, String> metadata() {
    return request.metadata();
  }

  @Override
  public byte[] body() {
    return request.body();
  }

  @Override
  public long remainingMillis() {
    return request.deadlineMillis();
  }

  @Override
  public void onWritten() {
    if (!ended) {
      attempt.onSent();
    }
  }

  /**
   * The answer goes to the caller as it is (an OK of the runtime's), while its node's outlier
   * detection hears what the protocol's status says of it, as for a Tether answer.
   */
  @Override
  public void onAnswer(byte[] body, ClientWireProtocol.Blame blame) {
    if (takeEnding()) {
      connection.onAnswered(blame == ClientWireProtocol.Blame.NONE);
      attempt.blameTheNode(blamed(blame));
      attempt.onResponse(Status.OK, Map.of(), body);
      connection.closeIfDrained();
    }
  }

  /**
   * A failed answer: the call fails with it, and a retryable one is first judged as a failure of a
   * server that may have run the call (SERVER_FAILED: retried only when idempotent).
   */
  @Override
  public void onFailedAnswer(
      byte[] body,
      ClientWireProtocol.Blame blame,
      String status,
      String detail,
      boolean retryable) {
    if (takeEnding()) {
      connection.onAnswered(blame == ClientWireProtocol.Blame.NONE);
      String message = connection + " answered " + status + (detail == null ? "" : ": " + detail);
      attempt.onFailedAnswer(
          new FailedAnswerException(message, status, body),
          blamed(blame),
          retryable ? Attempt.Outcome.SERVER_FAILED : null);
      connection.closeIfDrained();
    }
  }

  /**
   * A stream was accepted: the caller has its answer, and the node's outlier detection waits for
   * the stream's end ({@link AnswerBlame#PENDING}), which the router kept now hears.
   */
  @Override
  public void onStreamAccepted(byte[] body) {
    NodeRouter router = attempt.nodeRouter(); // before the ending lets the attempt go
    if (takeEnding()) {
      synchronized (this) {
        streamRouter = router;
      }
      connection.onAnswered(true);
      attempt.blameTheNode(AnswerBlame.PENDING);
      attempt.onResponse(Status.OK, Map.of(), body);
      connection.closeIfDrained();
    }
  }

  @Override
  public void onStreamEnd(ClientWireProtocol.Blame blame) {
    NodeRouter router;
    synchronized (this) {
      router = streamRouter;
      streamRouter = null;
    }
    if (router != null) {
      router.onStreamEnded(connection, blamed(blame));
    }
  }

  private static AnswerBlame blamed(ClientWireProtocol.Blame blame) {
    return switch (blame) {
      case NONE -> AnswerBlame.NONE;
      case FAILED_ANSWER -> AnswerBlame.FAILED_ANSWER;
      case NODE_FAULT -> AnswerBlame.NODE_FAULT;
    };
  }

  @Override
  public void onRefused(String why) {
    if (takeEnding()) {
      attempt.onRefused(why);
      connection.closeIfDrained();
    }
  }

  @Override
  public void onLost(Throwable cause) {
    if (takeEnding()) {
      attempt.onConnectionLost(cause);
      connection.closeIfDrained();
    }
  }

  /** The runtime forgot the call (cancelled, timed out): nothing the link says counts now. */
  void end() {
    ended = true;
  }

  /** The connection closed under the call (it left the table already). */
  void lose(Throwable cause) {
    if (!ended) {
      ended = true;
      attempt.onConnectionLost(cause);
    }
  }

  private boolean takeEnding() {
    if (ended) {
      return false;
    }
    ended = true;
    return connection.release(this);
  }

  @Override
  public String toString() {
    return request.service() + "/" + request.operation() + " on " + connection;
  }
}
