package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.spi.CodecException;
import java.io.IOException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exceptions are immutable: a call's attempts come on a copy of the same class, never by changing
 * the original.
 */
class TetherExceptionTest {
  private static final List<Attempt> TWO_ATTEMPTS =
      List.of(
          new Attempt("tcp -h 127.0.0.1 -p 7001", Attempt.Outcome.NOT_SENT, "reset"),
          new Attempt("tcp -h 127.0.0.1 -p 7002", Attempt.Outcome.REFUSED, "going away"));

  static Stream<TetherException> everyKind() {
    IOException cause = new IOException("reset by peer");
    return Stream.of(
        new TetherException("plain", cause),
        new AttemptTimeoutException("attempt timed out"),
        new BatchLostException(3, "3 lost", cause),
        new ConnectFailedException("refused", cause),
        new ConnectTimeoutException("slow", cause),
        new ConnectionLostException("lost", true, cause),
        new IncompatibleServerException("too old"),
        new InvocationTimeoutException("late"),
        new NoAvailableNodeException("all dead"),
        new NoEndpointException("none left"),
        new OperationNotFoundException("no op"),
        new PermissionDeniedException("no"),
        new ProtocolException("bad frame"),
        new ProxyParseException("x:", 2, "no endpoint"),
        new RemoteException("java.lang.IllegalStateException", "broken"),
        new RequestRefusedException("refused"),
        new RequestTooLargeException("too big"),
        new ServiceNotFoundException("no service"),
        new SessionLostException("session gone"),
        new CodecException("undecodable", cause));
  }

  @ParameterizedTest
  @MethodSource("everyKind")
  void withAttemptsReturnsACopyOfTheSameKindAndLeavesTheOriginalUnchanged(
      TetherException original) {
    original.addSuppressed(new IllegalStateException("a later endpoint failed too"));

    TetherException copy = original.withAttempts(TWO_ATTEMPTS);

    assertThat(copy)
        .isNotSameAs(original)
        .hasSameClassAs(original)
        .hasMessage(original.getMessage())
        .hasCause(original.getCause());
    assertThat(copy.attempts()).isEqualTo(TWO_ATTEMPTS);
    assertThat(copy.getSuppressed()).containsExactly(original.getSuppressed());
    assertThat(copy.getStackTrace()).isEqualTo(original.getStackTrace());
    assertThat(original.attempts()).isEmpty();
  }

  @Test
  void copiesKeepWhatEachKindCarries() {
    assertThat(
            new ConnectionLostException("lost", true).withAttempts(TWO_ATTEMPTS).mayHaveExecuted())
        .isTrue();
    assertThat(new BatchLostException(3, "3 lost", null).withAttempts(TWO_ATTEMPTS).lost())
        .isEqualTo(3);
    assertThat(
            new ProxyParseException("x:", 2, "no endpoint").withAttempts(TWO_ATTEMPTS).position())
        .isEqualTo(2);
    RemoteException remote =
        new RemoteException("java.lang.IllegalStateException", "broken").withAttempts(TWO_ATTEMPTS);
    assertThat(remote.remoteType()).isEqualTo("java.lang.IllegalStateException");
    assertThat(remote.remoteMessage()).isEqualTo("broken");
  }

  @Test
  void attemptsCannotBeChangedThroughTheList() {
    TetherException copy =
        new TetherException("plain").withAttempts(new java.util.ArrayList<>(TWO_ATTEMPTS));
    assertThat(copy.attempts()).isUnmodifiable();
  }

  @ParameterizedTest
  @MethodSource("everyKind")
  void everyKindDeclaresItsOwnCopy(TetherException kind) throws NoSuchMethodException {
    assertThat(kind.getClass().getDeclaredMethod("withAttempts", List.class).getReturnType())
        .isEqualTo(kind.getClass());
  }
}
