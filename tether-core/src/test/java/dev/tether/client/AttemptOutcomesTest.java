package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Attempt;
import dev.tether.ConnectionLostException;
import dev.tether.InvocationTimeoutException;
import dev.tether.OperationNotFoundException;
import dev.tether.PermissionDeniedException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import dev.tether.ServiceNotFoundException;
import dev.tether.TetherException;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The at-most-once rule as a table, without sockets: what happened to an attempt, mapped by {@link
 * AttemptOutcomes} and judged by {@link RetryPolicy}, for an idempotent call and for one that is
 * not. A request that provably did not run may be retried; one that may have run only when
 * idempotent; the server's own answers end the call.
 */
class AttemptOutcomesTest {
  /**
   * What the call does after the event: RETRY, FAIL, or END (the answer ends it, the policy is not
   * asked).
   */
  private static String afterAnswer(Status status, boolean idempotent, boolean balanced) {
    Attempt.Outcome outcome = AttemptOutcomes.ofAnswer(status);
    return outcome == null
        ? "END"
        : RetryPolicy.decide(outcome, idempotent, false, balanced, false, () -> true).name();
  }

  private static String afterLostConnection(boolean sent, boolean idempotent) {
    return RetryPolicy.decide(
            AttemptOutcomes.ofLostConnection(sent), idempotent, false, false, false, () -> true)
        .name();
  }

  @ParameterizedTest(
      name = "{0}: one server idempotent {1}, not idempotent {2}; a group's node {3}, {4}")
  @CsvSource({
    "REFUSED,             RETRY, RETRY, RETRY, RETRY",
    "INTERNAL,            RETRY, FAIL,  RETRY, FAIL",
    "REMOTE_ERROR,        END,   END,   END,   END",
    "SERVICE_NOT_FOUND,   FAIL,  FAIL,  RETRY, RETRY",
    "OPERATION_NOT_FOUND, FAIL,  FAIL,  RETRY, RETRY",
    "DEADLINE_EXCEEDED,   END,   END,   END,   END",
    "PERMISSION_DENIED,   END,   END,   END,   END"
  })
  void eachFailingAnswerIsRetriedOnlyAsTheAtMostOnceRuleAllows(
      Status status,
      String idempotent,
      String notIdempotent,
      String idempotentInGroup,
      String notIdempotentInGroup) {
    assertThat(afterAnswer(status, true, false)).isEqualTo(idempotent);
    assertThat(afterAnswer(status, false, false)).isEqualTo(notIdempotent);
    assertThat(afterAnswer(status, true, true)).isEqualTo(idempotentInGroup);
    assertThat(afterAnswer(status, false, true)).isEqualTo(notIdempotentInGroup);
  }

  @ParameterizedTest(name = "sent {0}: idempotent {1}, not idempotent {2}")
  @CsvSource({"false, RETRY, RETRY", "true,  RETRY, FAIL"})
  void aLostConnectionRetriesWhatProvablyDidNotRunAndWhatMayRunTwice(
      boolean sent, String idempotent, String notIdempotent) {
    assertThat(afterLostConnection(sent, true)).isEqualTo(idempotent);
    assertThat(afterLostConnection(sent, false)).isEqualTo(notIdempotent);
  }

  @Test
  void anOkAnswerIsNoAttemptFailure() {
    assertThat(AttemptOutcomes.ofAnswer(Status.OK)).isNull();
  }

  @Test
  void aLostConnectionsExceptionSaysTheServerMayHaveRunItExactlyWhenItWasSent() {
    IOException reset = new IOException("reset by peer");
    ConnectionLostException beforeSend =
        AttemptOutcomes.lostConnection(false, "tcp -h 127.0.0.1 -p 7001", "put", reset);
    ConnectionLostException afterSend =
        AttemptOutcomes.lostConnection(true, "tcp -h 127.0.0.1 -p 7001", "put", reset);
    assertThat(beforeSend.mayHaveExecuted()).isFalse();
    assertThat(beforeSend)
        .hasMessage("connection tcp -h 127.0.0.1 -p 7001 failed before put was sent: reset by peer")
        .hasCause(reset);
    assertThat(afterSend.mayHaveExecuted()).isTrue();
    assertThat(afterSend)
        .hasMessage("connection tcp -h 127.0.0.1 -p 7001 lost after put was sent: reset by peer");
  }

  @Test
  void deadlinesAndInternalFailuresAreNodeFaultsAndTheServicesFailuresFailedAnswers() {
    for (Status s : Status.values()) {
      AnswerBlame expected =
          switch (s) {
            case DEADLINE_EXCEEDED, INTERNAL -> AnswerBlame.NODE_FAULT;
            case REMOTE_ERROR, PERMISSION_DENIED -> AnswerBlame.FAILED_ANSWER;
            default -> AnswerBlame.NONE;
          };
      assertThat(AttemptOutcomes.blamesTheNode(s)).as(s.name()).isEqualTo(expected);
    }
  }

  @Test
  void eachFailingAnswerBecomesTheExceptionThatNamesIt() {
    Map<String, String> meta =
        Map.of(
            Response.ERROR_TYPE,
            "java.lang.IllegalStateException",
            Response.ERROR_MESSAGE,
            "broken");
    String where = "tcp -h 127.0.0.1 -p 7001";
    assertThat(AttemptOutcomes.failureOf(Status.REMOTE_ERROR, meta, "kv", "put", where))
        .isInstanceOfSatisfying(
            RemoteException.class, e -> assertThat(e.remoteMessage()).isEqualTo("broken"));
    assertThat(AttemptOutcomes.failureOf(Status.SERVICE_NOT_FOUND, meta, "kv", "put", where))
        .isInstanceOf(ServiceNotFoundException.class)
        .hasMessage("no service \"kv\" on " + where);
    assertThat(AttemptOutcomes.failureOf(Status.OPERATION_NOT_FOUND, meta, "kv", "put", where))
        .isInstanceOf(OperationNotFoundException.class)
        .hasMessageContaining("no operation \"put\"");
    assertThat(AttemptOutcomes.failureOf(Status.REFUSED, meta, "kv", "put", where))
        .isInstanceOf(RequestRefusedException.class)
        .hasMessage("the server refused the request on " + where + " (put)");
    assertThat(AttemptOutcomes.failureOf(Status.DEADLINE_EXCEEDED, meta, "kv", "put", where))
        .isInstanceOf(InvocationTimeoutException.class);
    assertThat(AttemptOutcomes.failureOf(Status.INTERNAL, meta, "kv", "put", where))
        .hasSameClassAs(new TetherException(""))
        .hasMessage("the server failed: broken");
    assertThat(AttemptOutcomes.failureOf(Status.PERMISSION_DENIED, meta, "kv", "put", where))
        .isInstanceOf(PermissionDeniedException.class)
        .hasMessageContaining("broken");
  }
}
