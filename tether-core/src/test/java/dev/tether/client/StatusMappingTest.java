package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.InvocationTimeoutException;
import dev.tether.OperationNotFoundException;
import dev.tether.PermissionDeniedException;
import dev.tether.Proxy;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import dev.tether.ServiceNotFoundException;
import dev.tether.Tether;
import dev.tether.TetherException;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every RESPONSE status a server can send arrives as its contract exception. */
class StatusMappingTest {
  private ScriptedServer server;
  private Tether tether;
  private Proxy proxy;

  @BeforeEach
  void start() throws Exception {
    // The operation names the status to answer with.
    server =
        new ScriptedServer(
            r ->
                new Response(
                    r.requestId(),
                    Status.valueOf(r.operation()),
                    Map.of(
                        Response.ERROR_TYPE,
                        "com.example.Boom",
                        Response.ERROR_MESSAGE,
                        "it broke"),
                    new byte[] {42}));
    tether = Tether.builder().property("tether.retry.budget.floorPerSecond", "0").build();
    proxy = tether.proxy("svc:tcp -h 127.0.0.1 -p " + server.port());
  }

  @AfterEach
  void stop() throws Exception {
    tether.close();
    server.close();
  }

  private byte[] call(Status status) {
    return proxy.invoke(status.name(), new byte[0]);
  }

  @Test
  void okReturnsTheBody() {
    assertThat(call(Status.OK)).containsExactly(42);
  }

  @Test
  void remoteErrorBecomesRemoteExceptionWithTypeAndMessage() {
    assertThatThrownBy(() -> call(Status.REMOTE_ERROR))
        .isInstanceOfSatisfying(
            RemoteException.class,
            e -> {
              assertThat(e.remoteType()).isEqualTo("com.example.Boom");
              assertThat(e.remoteMessage()).isEqualTo("it broke");
            });
  }

  @Test
  void serviceNotFoundBecomesServiceNotFoundException() {
    assertThatThrownBy(() -> call(Status.SERVICE_NOT_FOUND))
        .isInstanceOf(ServiceNotFoundException.class);
  }

  @Test
  void operationNotFoundBecomesOperationNotFoundException() {
    assertThatThrownBy(() -> call(Status.OPERATION_NOT_FOUND))
        .isInstanceOf(OperationNotFoundException.class);
  }

  @Test
  void refusedBecomesRequestRefusedExceptionOnceRetriesAreSpent() {
    assertThatThrownBy(() -> call(Status.REFUSED)).isInstanceOf(RequestRefusedException.class);
  }

  @Test
  void deadlineExceededBecomesInvocationTimeoutException() {
    assertThatThrownBy(() -> call(Status.DEADLINE_EXCEEDED))
        .isInstanceOf(InvocationTimeoutException.class);
  }

  @Test
  void internalBecomesATetherExceptionSayingTheServerFailed() {
    assertThatThrownBy(() -> call(Status.INTERNAL))
        .isExactlyInstanceOf(TetherException.class)
        .hasMessageContaining("the server failed");
  }

  @Test
  void permissionDeniedBecomesPermissionDeniedExceptionWithTheReasonAndIsNeverRetried() {
    assertThatThrownBy(() -> call(Status.PERMISSION_DENIED))
        .isInstanceOf(PermissionDeniedException.class)
        .hasMessageContaining("it broke");
    assertThat(server.requestsSeen()).isEqualTo(1);
  }
}
