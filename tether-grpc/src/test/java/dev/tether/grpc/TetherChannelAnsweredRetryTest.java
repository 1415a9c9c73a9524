package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.tether.EndpointSelection;
import dev.tether.Tether;
import dev.tether.observe.TetherEvent;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gRPC answer whose status says another server may serve the call (UNAVAILABLE) goes through the
 * runtime's retry path under the at-most-once rule, against two grpc-java servers: an idempotent
 * call moves to the other server, a call that is not idempotent ends with the answer after one
 * attempt (the server saw it), and the retry budget rations the retries.
 */
@Timeout(60)
class TetherChannelAnsweredRetryTest {
  private final GrpcJavaPeers peers = new GrpcJavaPeers();
  private final CountingService a = new CountingService("a");
  private final CountingService b = new CountingService("b");
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private String endpoints;

  @BeforeEach
  void start() throws Exception {
    Server first = peers.serve(a.definition());
    Server second = peers.serve(b.definition());
    endpoints =
        "tcp -h 127.0.0.1 -p " + first.getPort() + ":tcp -h 127.0.0.1 -p " + second.getPort();
    a.failWith = Status.UNAVAILABLE.withDescription("shutting down");
  }

  @AfterEach
  void stop() throws Exception {
    peers.close();
  }

  /** A channel over a then b, in that order, on a runtime made by {@code builder}. */
  private ManagedChannel channel(Tether.Builder builder) {
    Tether tether = peers.runtime(builder.listener(events::add).build());
    return peers.channel(
        TetherGrpc.channel(
            tether
                .proxy("counting:" + endpoints)
                .withEndpointSelection(EndpointSelection.ORDERED)));
  }

  private static String call(ManagedChannel channel, MethodDescriptor<byte[], byte[]> method) {
    return text(
        ClientCalls.blockingUnaryCall(
            channel,
            method,
            CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
            text("x")));
  }

  @Test
  void anIdempotentCallAnsweredUnavailableByOneServerSucceedsOnTheOther() {
    ManagedChannel channel = channel(Tether.builder());

    assertThat(call(channel, CountingService.IDEMPOTENT_CALL)).isEqualTo("b");

    assertThat(a.calls).hasValue(1);
    assertThat(b.calls).hasValue(1);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.RETRY));
  }

  @Test
  void aNonIdempotentCallAnsweredUnavailableFailsWithTheAnswerAfterOneAttempt() {
    ManagedChannel channel = channel(Tether.builder());

    StatusRuntimeException failed =
        catchThrowableOfType(
            StatusRuntimeException.class, () -> call(channel, CountingService.CALL));

    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failed.getStatus().getDescription()).isEqualTo("shutting down");
    assertThat(a.calls).hasValue(1);
    assertThat(b.calls).hasValue(0);
    // The server's own answer, as it gave it: nothing of the runtime's is added.
    assertThat(failed.getStatus().getCause()).isNull();
    assertThat(events).noneMatch(e -> e.kind() == TetherEvent.Kind.RETRY);
  }

  @Test
  void aStatusTheServiceChoseIsNeverRetriedEvenForAnIdempotentCall() {
    a.failWith = Status.NOT_FOUND.withDescription("no such key");
    ManagedChannel channel = channel(Tether.builder());

    StatusRuntimeException failed =
        catchThrowableOfType(
            StatusRuntimeException.class, () -> call(channel, CountingService.IDEMPOTENT_CALL));

    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(a.calls).hasValue(1);
    assertThat(b.calls).hasValue(0);
  }

  @Test
  void aSpentRetryBudgetEndsAnIdempotentCallWithTheUnavailableAnswer() {
    ManagedChannel channel =
        channel(
            Tether.builder()
                .property("tether.retry.budget.ratio", "0")
                .property("tether.retry.budget.floorPerSecond", "0"));

    StatusRuntimeException failed =
        catchThrowableOfType(
            StatusRuntimeException.class, () -> call(channel, CountingService.IDEMPOTENT_CALL));

    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(a.calls).hasValue(1);
    assertThat(b.calls).hasValue(0);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.RETRY_BUDGET_EXHAUSTED));
  }
}
