package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * EXECUTOR mode's run queue on a hand-driven executor (what is asked of the executor, when) and
 * on a real pool with concurrent submitters (every call answered once, run at most once).
 */
class RunQueueTest {
  private final Queue<Runnable> executor = new ArrayDeque<>();
  private final AtomicInteger runs = new AtomicInteger();
  private final CollectingResponder responder = new CollectingResponder();
  private final List<Response> answers = responder.answers;
  private final ServiceHandler counting = new RawServiceHandler((op, payload, ctx) -> {
    runs.incrementAndGet();
    return payload;
  });

  private Dispatcher dispatcher(java.util.concurrent.Executor e, int bound) {
    return new Dispatcher(Map.of("svc", counting), ExecutionMode.EXECUTOR, e, System::nanoTime, List.of(), null, bound, 10_000);
  }

  private static Request request(int id) {
    return new Request(id, 0, "svc", "echo", 0, Map.of(), new byte[] {1});
  }

  private List<Status> statuses() {
    return answers.stream().map(Response::status).toList();
  }

  @Test
  void requestsBeyondTheQueueBoundAreRefusedAndNeverRun() {
    Dispatcher d = dispatcher(executor::add, 4);
    for (int id = 1; id <= 6; id++) {
      d.dispatch(request(id), Peer.UNKNOWN, responder);
    }
    assertThat(answers).extracting(Response::requestId).containsExactly(5, 6);
    assertThat(statuses()).containsOnly(Status.REFUSED);

    while (!executor.isEmpty()) {
      executor.poll().run();
    }
    assertThat(runs).hasValue(4);
    assertThat(answers).extracting(Response::requestId).containsExactly(5, 6, 1, 2, 3, 4);
  }

  @Test
  void aBurstOfCallsWakesOneWorkerAndAWaitingCallAsksForOneMoreBeforeItRuns() {
    List<Integer> askedWhenEachRan = new ArrayList<>();
    Dispatcher d = new Dispatcher(Map.of("svc", new RawServiceHandler((op, payload, ctx) -> {
      askedWhenEachRan.add(executor.size());
      return payload;
    })), ExecutionMode.EXECUTOR, executor::add, System::nanoTime, List.of(), null, 16, 10_000);
    for (int id = 1; id <= 3; id++) {
      d.dispatch(request(id), Peer.UNKNOWN, responder);
    }
    assertThat(executor).hasSize(1); // one wake-up pending, however many calls queue behind it

    executor.poll().run();

    // The first call might have blocked: before it ran, one more worker had been asked for (and
    // only one, while that one had not started); the thread already awake ran all three.
    assertThat(askedWhenEachRan).containsExactly(1, 1, 1);
    assertThat(answers).extracting(Response::requestId).containsExactly(1, 2, 3);
    executor.poll().run(); // the worker asked for finds nothing left and asks for none
    assertThat(executor).isEmpty();
  }

  @Test
  void closingRefusesQueuedCallsAndTheyNeverRun() {
    Dispatcher d = dispatcher(executor::add, 16);
    d.dispatch(request(1), Peer.UNKNOWN, responder);
    d.dispatch(request(2), Peer.UNKNOWN, responder);

    d.close();
    d.dispatch(request(3), Peer.UNKNOWN, responder);
    while (!executor.isEmpty()) {
      executor.poll().run();
    }

    assertThat(runs).hasValue(0);
    assertThat(answers).extracting(Response::requestId).containsExactly(1, 2, 3);
    assertThat(statuses()).containsOnly(Status.REFUSED);
  }

  @Test
  void executorThatTakesNoWorkLeavesNothingQueuedUnanswered() {
    Dispatcher d = dispatcher(task -> {
      throw new java.util.concurrent.RejectedExecutionException("full");
    }, 16);
    d.dispatch(request(1), Peer.UNKNOWN, responder);
    d.dispatch(request(2), Peer.UNKNOWN, responder);

    assertThat(runs).hasValue(0);
    assertThat(answers).extracting(Response::requestId).containsExactly(1, 2);
    assertThat(statuses()).containsOnly(Status.REFUSED);
  }

  @Test
  void everyCallIsAnsweredOnceAndRunAtMostOnceWithConcurrentSubmittersAndWorkers() throws Exception {
    int submitters = 4;
    int perSubmitter = 5_000;
    ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 8, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
    ExecutorService loops = Executors.newFixedThreadPool(submitters);
    Map<Integer, Status> answered = new ConcurrentHashMap<>();
    AtomicInteger twice = new AtomicInteger();
    Responder recording = new Responder() {
      @Override
      public void respond(Response response) {
        if (answered.putIfAbsent(response.requestId(), response.status()) != null) {
          twice.incrementAndGet();
        }
      }

      @Override
      public void onewayDone() {}
    };
    try {
      Dispatcher d = dispatcher(pool, 64);
      List<Future<?>> sent = new ArrayList<>();
      for (int s = 0; s < submitters; s++) {
        int base = s * perSubmitter;
        sent.add(loops.submit(() -> {
          for (int i = 1; i <= perSubmitter; i++) {
            d.dispatch(request(base + i), Peer.UNKNOWN, recording);
          }
        }));
      }
      for (Future<?> f : sent) {
        f.get(30, TimeUnit.SECONDS);
      }

      await().atMost(Duration.ofSeconds(30)).until(() -> answered.size() == submitters * perSubmitter);
      assertThat(twice).hasValue(0);
      long ok = answered.values().stream().filter(s -> s == Status.OK).count();
      assertThat(ok).isPositive();
      assertThat(runs.get()).isEqualTo(ok);
      assertThat(answered.values()).containsOnly(Status.OK, Status.REFUSED);
    } finally {
      loops.shutdownNow();
      pool.shutdownNow();
    }
  }
}
