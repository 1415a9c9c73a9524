package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ExecutionMode;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * VIRTUAL_THREADS dispatch on a hand-driven executor standing in for the virtual-thread one (each
 * queued task is one thread that has not reached its call yet): its bound and its closing rules,
 * which hold on any Java.
 */
class ThreadPerCallTest {
  private final Queue<Runnable> threads = new ArrayDeque<>();
  private final AtomicInteger runs = new AtomicInteger();
  private final CollectingResponder responder = new CollectingResponder();
  private final ServiceHandler counting =
      new RawServiceHandler(
          (op, payload, ctx) -> {
            runs.incrementAndGet();
            return payload;
          });

  private Dispatcher dispatcher(int maxRunning) {
    return new Dispatcher(
        Map.of("svc", counting),
        ExecutionMode.VIRTUAL_THREADS,
        threads::add,
        System::nanoTime,
        List.of(),
        null,
        maxRunning);
  }

  private static Request request(int id) {
    return new Request(id, 0, "svc", "echo", 0, Map.of(), new byte[] {(byte) id});
  }

  private List<Status> statuses() {
    return responder.answers.stream().map(Response::status).toList();
  }

  @Test
  void eachCallGetsAThreadOfItsOwnAtOnceWithoutAWakeUp() {
    Dispatcher d = dispatcher(10);
    for (int id = 1; id <= 3; id++) {
      assertThat(d.dispatch(request(id), Peer.UNKNOWN, responder, null))
          .as("cancellable while it runs")
          .isNotNull();
    }
    assertThat(threads).hasSize(3);

    threads.forEach(Runnable::run);
    assertThat(runs).hasValue(3);
    assertThat(statuses()).containsOnly(Status.OK).hasSize(3);
  }

  @Test
  void aCallBeyondTheServersRunningBoundIsRefusedAndNeverRuns() {
    Dispatcher d = dispatcher(2);
    for (int id = 1; id <= 3; id++) {
      d.dispatch(request(id), Peer.UNKNOWN, responder, null);
    }
    assertThat(threads).hasSize(2);
    assertThat(responder.answers)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.requestId()).isEqualTo(3);
              assertThat(r.status()).isEqualTo(Status.REFUSED);
            });

    threads.poll().run(); // one call ends: its slot goes to the next
    d.dispatch(request(4), Peer.UNKNOWN, responder, null);
    assertThat(threads).hasSize(2);
    threads.forEach(Runnable::run);
    assertThat(runs).hasValue(3);
  }

  @Test
  void anotherProtocolsWorkHoldsPlacesOfTheSameBoundAsTetherCalls() {
    Dispatcher d = dispatcher(2);
    Executor grpc = d.protocolExecutor(null, null);
    grpc.execute(runs::incrementAndGet);
    d.dispatch(request(1), Peer.UNKNOWN, responder, null);
    d.dispatch(request(2), Peer.UNKNOWN, responder, null);

    assertThat(threads).hasSize(2);
    assertThat(statuses()).as("the gRPC task holds a place").containsExactly(Status.REFUSED);
    assertThatThrownBy(() -> grpc.execute(runs::incrementAndGet))
        .as("offered again later by its protocol, never run beyond the bound")
        .isInstanceOf(RejectedExecutionException.class);

    threads.poll().run(); // the gRPC task ends: its place is free again
    grpc.execute(runs::incrementAndGet);
    assertThat(threads).hasSize(2);
    threads.forEach(Runnable::run);
    assertThat(runs).hasValue(3);
    assertThat(statuses()).containsExactly(Status.REFUSED, Status.OK);
  }

  @Test
  void aCallWhoseThreadReachesItAfterCloseIsRefusedAndNewOnesToo() {
    Dispatcher d = dispatcher(10);
    d.dispatch(request(1), Peer.UNKNOWN, responder, null);
    d.close();
    d.dispatch(request(2), Peer.UNKNOWN, responder, null);
    threads.forEach(Runnable::run);

    assertThat(runs).hasValue(0);
    assertThat(statuses()).containsExactly(Status.REFUSED, Status.REFUSED);
  }

  @Test
  void anExecutorThatTakesNoThreadRefusesTheCallAndFreesItsRoom() {
    AtomicBoolean rejectNext = new AtomicBoolean(true);
    Dispatcher d =
        new Dispatcher(
            Map.of("svc", counting),
            ExecutionMode.VIRTUAL_THREADS,
            task -> {
              if (rejectNext.getAndSet(false)) {
                throw new RejectedExecutionException("no thread this time");
              }
              threads.add(task);
            },
            System::nanoTime,
            List.of(),
            null,
            1);
    d.dispatch(request(1), Peer.UNKNOWN, responder, null);
    d.dispatch(
        request(2),
        Peer.UNKNOWN,
        responder,
        null); // the bound is 1: refused if 1 still held its slot
    threads.forEach(Runnable::run);

    assertThat(statuses()).containsExactly(Status.REFUSED, Status.OK);
    assertThat(runs).hasValue(1);
  }
}
