package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ExecutionMode;
import dev.tether.PermissionDeniedException;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.spi.CodecException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Dispatch decisions on a hand-driven executor and clock: every status the server can answer. */
class DispatcherTest {
  private static final long MS = 1_000_000L;

  private final AtomicLong now = new AtomicLong(5_000 * MS);
  private final Queue<Runnable> queued = new ArrayDeque<>();
  private final AtomicInteger runs = new AtomicInteger();
  private final CollectingResponder responder = new CollectingResponder();
  private final List<Response> answers = responder.answers;

  private Dispatcher dispatcher(ServiceHandler handler) {
    return new Dispatcher(Map.of("svc", handler), ExecutionMode.EXECUTOR, queued::add, now::get);
  }

  private final ServiceHandler counting =
      new RawServiceHandler(
          (op, payload, ctx) -> {
            runs.incrementAndGet();
            if (op.equals("codec")) {
              throw new CodecException("cannot encode a Thread", null);
            }
            if (op.equals("boom")) {
              throw new IllegalStateException("boom");
            }
            return payload;
          });

  private static Request request(String service, String operation, long deadlineMillis) {
    return new Request(7, 0, service, operation, deadlineMillis, Map.of(), new byte[] {1});
  }

  private Status answerTo(Request r) {
    dispatcher(counting).dispatch(r, Peer.UNKNOWN, responder);
    while (!queued.isEmpty()) {
      queued.poll().run();
    }
    return answers.get(answers.size() - 1).status();
  }

  @Test
  void requestThatWaitedPastItsDeadlineIsAnsweredDeadlineExceededWithoutRunning() {
    dispatcher(counting).dispatch(request("svc", "echo", 100), Peer.UNKNOWN, responder);
    now.addAndGet(100 * MS);
    queued.poll().run();
    assertThat(answers)
        .singleElement()
        .extracting(Response::status)
        .isEqualTo(Status.DEADLINE_EXCEEDED);
    assertThat(runs).hasValue(0);
  }

  @Test
  void requestStartedWithinItsDeadlineRuns() {
    dispatcher(counting).dispatch(request("svc", "echo", 100), Peer.UNKNOWN, responder);
    now.addAndGet(99 * MS);
    queued.poll().run();
    assertThat(answers).singleElement().extracting(Response::status).isEqualTo(Status.OK);
    assertThat(runs).hasValue(1);
  }

  @Test
  void eachOutcomeHasItsStatus() {
    assertThat(answerTo(request("svc", "echo", 0))).isEqualTo(Status.OK);
    assertThat(answerTo(request("nope", "echo", 0))).isEqualTo(Status.SERVICE_NOT_FOUND);
    assertThat(answerTo(request("svc", "boom", 0))).isEqualTo(Status.REMOTE_ERROR);
    assertThat(answerTo(request("svc", "codec", 0))).isEqualTo(Status.INTERNAL);
  }

  @Test
  void fullExecutorAnswersRefusedWithoutRunning() {
    Dispatcher full =
        new Dispatcher(
            Map.of("svc", counting),
            ExecutionMode.EXECUTOR,
            task -> {
              throw new RejectedExecutionException("full");
            },
            now::get);
    full.dispatch(request("svc", "echo", 0), Peer.UNKNOWN, responder);
    assertThat(answers).singleElement().extracting(Response::status).isEqualTo(Status.REFUSED);
    assertThat(runs).hasValue(0);
  }

  @Test
  void unknownOperationOfATypedServiceIsOperationNotFound() {
    ServiceHandler typed =
        new ServiceHandler() {
          @Override
          public boolean hasOperation(String operation) {
            return false;
          }

          @Override
          public Object handle(String operation, byte[] payload, dev.tether.CallContext context) {
            throw new AssertionError("must not run");
          }
        };
    dispatcher(typed).dispatch(request("svc", "missing", 0), Peer.UNKNOWN, responder);
    assertThat(answers)
        .singleElement()
        .extracting(Response::status)
        .isEqualTo(Status.OPERATION_NOT_FOUND);
  }

  @Test
  void pingIsAnsweredWithoutRunningServiceCode() {
    dispatcher(counting)
        .dispatch(request("svc", Request.PING_OPERATION, 0), Peer.UNKNOWN, responder);
    assertThat(answers).singleElement().extracting(Response::status).isEqualTo(Status.OK);
    assertThat(runs).hasValue(0);
  }

  private void dispatchThrough(dev.tether.ServerInterceptor interceptor, Request r) {
    new Dispatcher(
            Map.of("svc", counting),
            ExecutionMode.EXECUTOR,
            queued::add,
            now::get,
            List.of(interceptor))
        .dispatch(r, Peer.UNKNOWN, responder);
    while (!queued.isEmpty()) {
      queued.poll().run();
    }
  }

  @Test
  void interceptorThatDeniesAnswersPermissionDeniedWithItsReasonAndTheServiceNeverRuns() {
    dispatchThrough(
        call -> {
          throw new PermissionDeniedException("no token");
        },
        request("svc", "echo", 0));

    assertThat(answers)
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.status()).isEqualTo(Status.PERMISSION_DENIED);
              assertThat(a.metadata()).containsEntry(Response.ERROR_MESSAGE, "no token");
            });
    assertThat(runs).hasValue(0);
  }

  @Test
  void interceptorThatBreaksRefusesTheRequestAsInternalAndTheServiceNeverRuns() {
    dispatchThrough(
        call -> {
          throw new IllegalStateException("token store down");
        },
        request("svc", "echo", 0));

    assertThat(answers).singleElement().extracting(Response::status).isEqualTo(Status.INTERNAL);
    assertThat(runs).hasValue(0);
  }

  @Test
  void interceptorSeesTheRequestsNamesAndMetadataAndLetsItRun() {
    List<String> seen = new ArrayList<>();
    dispatchThrough(
        call -> seen.add(call.service() + "." + call.operation() + " " + call.metadata()),
        new Request(7, 0, "svc", "echo", 0, Map.of("token", "t-1"), new byte[] {1}));

    assertThat(seen).containsExactly("svc.echo {token=t-1}");
    assertThat(answers).singleElement().extracting(Response::status).isEqualTo(Status.OK);
    assertThat(runs).hasValue(1);
  }
}
