package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Attempt;
import dev.tether.EndpointSelection;
import dev.tether.Proxy;
import dev.tether.RequestRefusedException;
import dev.tether.Tether;
import dev.tether.observe.TetherEvent;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hedging and the retry budget over gRPC, against grpc-java's own servers: an idempotent method is
 * sent again to another server when the first is slow and the fast one answers; every retry and
 * hedge takes a token from the runtime's retry budget, as over Tether's protocol.
 */
@Timeout(90)
class TetherChannelHedgingTest {
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final GrpcJavaPeers peers = new GrpcJavaPeers();
  private final CountingService slow = new CountingService("slow");
  private final CountingService fast = new CountingService("fast");
  private Tether tether;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws Exception {
    peers.close();
  }

  private int serve(CountingService service) throws IOException {
    return peers.serve(service.definition()).getPort();
  }

  /** A runtime whose budget, when {@code spent}, allows no retry and no hedge at all. */
  private Proxy proxy(boolean spent, int firstPort, int secondPort) {
    Tether.Builder b = Tether.builder().listener(events::add);
    if (spent) {
      b.property("tether.retry.budget.ratio", "0")
          .property("tether.retry.budget.floorPerSecond", "0");
    }
    tether = peers.runtime(b.build());
    return tether
        .proxy("counting:tcp -h 127.0.0.1 -p " + firstPort + ":tcp -h 127.0.0.1 -p " + secondPort)
        .withEndpointSelection(EndpointSelection.ORDERED);
  }

  private String call(MethodDescriptor<byte[], byte[]> method, long deadlineMillis) {
    return text(
        ClientCalls.blockingUnaryCall(
            channel,
            method,
            CallOptions.DEFAULT.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS),
            text("x")));
  }

  @Test
  void anIdempotentMethodIsHedgedToTheFastGrpcServerWhichAnswers() throws Exception {
    slow.holdCalls = true;
    channel =
        peers.channel(
            TetherGrpc.channel(
                proxy(false, serve(slow), serve(fast)).withHedging(Duration.ofMillis(100), 2)));

    assertThat(call(CountingService.IDEMPOTENT_CALL, 20_000)).isEqualTo("fast");

    assertThat(slow.calls.get()).isEqualTo(1);
    assertThat(fast.calls.get()).isEqualTo(1);
    assertThat(tether.status().retries()).isEqualTo(1);
    // Events reach listeners on the runtime's delivery thread, after the call has ended.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.RETRY
                                && e.detail().startsWith("hedging")));
  }

  @Test
  void aMethodThatIsNotIdempotentIsNeverHedged() throws Exception {
    slow.holdCalls = true;
    channel =
        peers.channel(
            TetherGrpc.channel(
                proxy(false, serve(slow), serve(fast)).withHedging(Duration.ofMillis(50), 2)));

    // Sixty hedging delays: time enough for a hedge, had the call been one to hedge.
    assertThatThrownBy(() -> call(CountingService.CALL, 3_000))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));

    assertThat(slow.calls.get()).isLessThanOrEqualTo(1);
    assertThat(fast.calls.get()).isZero();
    assertThat(tether.status().retries()).isZero();
  }

  @Test
  void aSpentRetryBudgetRefusesTheHedgeOfASlowGrpcServer() throws Exception {
    slow.holdCalls = true;
    channel =
        peers.channel(
            TetherGrpc.channel(
                proxy(true, serve(slow), serve(fast)).withHedging(Duration.ofMillis(50), 2)));

    assertThatThrownBy(() -> call(CountingService.IDEMPOTENT_CALL, 1_000))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));

    assertThat(fast.calls.get()).isZero();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.RETRY_BUDGET_EXHAUSTED
                                && e.detail().startsWith("not hedging")));
    assertThat(tether.status().retryBudgetExhausted()).isPositive();
  }

  @Test
  void aSpentRetryBudgetFailsARefusedGrpcStreamWithItsCauseInsteadOfRetryingIt() throws Exception {
    RefusingHttp2Server refusing = new RefusingHttp2Server(RefusingHttp2Server.Mode.REFUSED_STREAM);
    peers.other(refusing);
    channel = peers.channel(TetherGrpc.channel(proxy(true, refusing.port(), serve(fast))));

    assertThatThrownBy(() -> call(CountingService.CALL, 20_000))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getCause())
                  .isInstanceOfSatisfying(
                      RequestRefusedException.class,
                      refused ->
                          assertThat(refused.attempts())
                              .extracting(Attempt::outcome)
                              .containsExactly(
                                  Attempt.Outcome.REFUSED, Attempt.Outcome.BUDGET_EXHAUSTED));
            });

    assertThat(refusing.streams.get()).isEqualTo(1);
    assertThat(fast.calls.get()).isZero();
    assertThat(tether.status().retryBudgetExhausted()).isEqualTo(1);
  }
}
