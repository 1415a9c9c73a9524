package dev.tether.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ConnectionLostException;
import dev.tether.FailedAnswerException;
import dev.tether.InvocationTimeoutException;
import dev.tether.PermissionDeniedException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import dev.tether.TetherException;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;

class RpcStatusTest {
  @Test
  void successIsOkWithoutAnErrorType() {
    assertThat(RpcStatus.of(null)).isEqualTo(new RpcStatus("OK", null));
  }

  @Test
  void answerFromTheServerIsItsStatusInBothAttributes() {
    assertThat(RpcStatus.of(new RemoteException("java.lang.IllegalStateException", "boom")))
        .isEqualTo(new RpcStatus("REMOTE_ERROR", "REMOTE_ERROR"));
    assertThat(RpcStatus.of(new PermissionDeniedException("no")))
        .isEqualTo(new RpcStatus("PERMISSION_DENIED", "PERMISSION_DENIED"));
    assertThat(RpcStatus.of(new RequestRefusedException("full")))
        .isEqualTo(new RpcStatus("REFUSED", "REFUSED"));
  }

  @Test
  void anotherProtocolsFailedAnswerIsItsOwnStatusInBothAttributes() {
    assertThat(RpcStatus.of(new FailedAnswerException("answered", "UNAVAILABLE", new byte[0])))
        .isEqualTo(new RpcStatus("UNAVAILABLE", "UNAVAILABLE"));
  }

  @Test
  void aGrpcServerSpanFailsOnlyForTheServersOwnErrorsWhileTethersFailsForEveryStatusButOk() {
    for (String serverError :
        List.of("UNKNOWN", "DEADLINE_EXCEEDED", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE")) {
      assertThat(RpcStatus.failsServerSpan("grpc", serverError)).as(serverError).isTrue();
    }
    assertThat(RpcStatus.failsServerSpan("grpc", "DATA_LOSS")).isTrue();
    for (String answer :
        List.of("OK", "CANCELLED", "NOT_FOUND", "INVALID_ARGUMENT", "PERMISSION_DENIED")) {
      assertThat(RpcStatus.failsServerSpan("grpc", answer)).as(answer).isFalse();
    }
    assertThat(RpcStatus.failsServerSpan("tether", "OK")).isFalse();
    assertThat(RpcStatus.failsServerSpan("tether", "SERVICE_NOT_FOUND")).isTrue();
  }

  @Test
  void failureWithoutAnAnswerIsItsKindAndItsClassName() {
    assertThat(RpcStatus.of(new InvocationTimeoutException("late")))
        .isEqualTo(new RpcStatus("DEADLINE_EXCEEDED", "dev.tether.InvocationTimeoutException"));
    assertThat(RpcStatus.of(new CancellationException()))
        .isEqualTo(new RpcStatus("CANCELLED", "java.util.concurrent.CancellationException"));
    assertThat(RpcStatus.of(new TetherException("the server failed: x")))
        .isEqualTo(new RpcStatus("FAILED", "dev.tether.TetherException"));
  }

  @Test
  void lostConnectionIsNamedByItsKind() {
    Throwable lost = new ConnectionLostException("gone", true, null);
    assertThat(RpcStatus.of(lost).code()).isEqualTo("CONNECTION_LOST");
    assertThat(RpcStatus.of(lost).errorType()).isEqualTo("dev.tether.ConnectionLostException");
  }
}
