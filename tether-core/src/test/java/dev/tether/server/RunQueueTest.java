package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.spi.Scheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * EXECUTOR mode's run queue on a hand-driven executor (what is asked of the executor, when) and on
 * a real pool with concurrent submitters (every call answered once, run at most once).
 */
class RunQueueTest {
  private final Queue<Runnable> executor = new ArrayDeque<>();
  private final AtomicInteger runs = new AtomicInteger();
  private final CollectingResponder responder = new CollectingResponder();
  private final List<Response> answers = responder.answers;
  private final ServiceHandler counting =
      new RawServiceHandler(
          (op, payload, ctx) -> {
            runs.incrementAndGet();
            return payload;
          });

  /** The stall checks' timer, run by hand: each entry is one armed check. */
  private final Queue<Runnable> armedChecks = new ArrayDeque<>();

  private final Scheduler timer =
      (task, delayNanos) -> {
        armedChecks.add(task);
        return () -> armedChecks.remove(task);
      };

  /**
   * A dispatcher whose service records how many worker wake-ups were pending when each call ran.
   */
  private Dispatcher recordingDispatcher(
      List<Integer> askedWhenEachRan, java.util.function.IntConsumer whileRunning) {
    return new Dispatcher(
        Map.of(
            "svc",
            new RawServiceHandler(
                (op, payload, ctx) -> {
                  askedWhenEachRan.add(executor.size());
                  if (whileRunning != null) {
                    whileRunning.accept(payload[0]); // the request id, as request(id) makes it
                  }
                  return payload;
                })),
        ExecutionMode.EXECUTOR,
        executor::add,
        System::nanoTime,
        List.of(),
        null,
        16,
        10_000);
  }

  private Dispatcher dispatcher(Executor e, int bound) {
    return new Dispatcher(
        Map.of("svc", counting),
        ExecutionMode.EXECUTOR,
        e,
        System::nanoTime,
        List.of(),
        null,
        bound,
        10_000);
  }

  private static Request request(int id) {
    return new Request(id, 0, "svc", "echo", 0, Map.of(), new byte[] {(byte) id});
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
  void aBurstOfCallsIsRunByTheOneWorkerItWokeWhichAsksForNoOther() {
    List<Integer> askedWhenEachRan = new ArrayList<>();
    Dispatcher d = recordingDispatcher(askedWhenEachRan, null);
    for (int id = 1; id <= 3; id++) {
      d.dispatch(request(id), Peer.UNKNOWN, responder, null);
    }
    d.startQueued(3, timer);
    assertThat(executor).hasSize(1); // one wake-up for the burst
    assertThat(armedChecks).hasSize(1); // calls 2 and 3 wait behind call 1, which might block

    executor.poll().run();

    assertThat(askedWhenEachRan).containsExactly(0, 0, 0);
    assertThat(answers).extracting(Response::requestId).containsExactly(1, 2, 3);
    armedChecks
        .poll()
        .run(); // nothing left queued when it fires: no worker woken, no check re-armed
    assertThat(executor).isEmpty();
    assertThat(armedChecks).isEmpty();
  }

  @Test
  void aSingleCallThatFindsNoWorkerBusyWakesOneAndArmsNoCheck() {
    Dispatcher d = dispatcher(executor::add, 16);
    d.dispatch(request(1), Peer.UNKNOWN, responder, null);
    d.startQueued(1, timer);

    assertThat(executor).hasSize(1);
    assertThat(armedChecks).isEmpty(); // nothing waits behind it
    executor.poll().run();
    assertThat(answers).extracting(Response::requestId).containsExactly(1);
  }

  @Test
  void aBurstThatFindsAWorkerBusyWakesNoOtherButArmsOneStallCheck() {
    Dispatcher d = dispatcher(executor::add, 16);
    d.dispatch(request(1), Peer.UNKNOWN, responder, null);
    d.startQueued(1, timer);
    d.dispatch(request(2), Peer.UNKNOWN, responder, null);
    d.startQueued(1, timer);
    d.dispatch(request(3), Peer.UNKNOWN, responder, null);
    d.startQueued(1, timer);

    assertThat(executor).hasSize(1);
    assertThat(armedChecks).hasSize(1);
    executor.poll().run();
    assertThat(answers).extracting(Response::requestId).containsExactly(1, 2, 3);

    armedChecks.poll().run(); // the queue is empty by then: no worker woken, no check re-armed
    assertThat(executor).isEmpty();
    assertThat(armedChecks).isEmpty();
  }

  /** Work for the run queue that records its name in {@code ran} when it runs. */
  private static QueuedWork work(String name, List<String> ran) {
    return new QueuedWork() {
      @Override
      public void run() {
        ran.add(name);
      }

      @Override
      public void refuse() {
        ran.add(name + " refused");
      }
    };
  }

  @Test
  void workThatMayWaitWakesNoWorkerButRunsFirstWithTheNextWorkOneIsWokenFor() {
    RunQueue queue = new RunQueue(executor::add, 16);
    List<String> ran = new ArrayList<>();
    queue.enqueue(work("completion of call 1", ran));
    queue.startLazily(timer);

    assertThat(executor).isEmpty(); // no thread woken for it alone
    assertThat(armedChecks).hasSize(1);

    queue.enqueue(work("call 2", ran));
    queue.start(1, timer);
    assertThat(executor).hasSize(1);
    executor.poll().run();
    assertThat(ran).containsExactly("completion of call 1", "call 2");

    armedChecks.poll().run(); // a worker ran since it was armed and the queue is empty: done
    assertThat(executor).isEmpty();
    assertThat(armedChecks).isEmpty();
  }

  @Test
  void workThatMayWaitGetsAWorkerWhenNoneIsWokenForOtherWorkWithinTheLazyCheck() {
    RunQueue queue = new RunQueue(executor::add, 16);
    List<String> ran = new ArrayList<>();
    queue.enqueue(work("completion", ran));
    queue.startLazily(timer);
    queue.enqueue(work("another completion", ran));
    queue.startLazily(timer);
    assertThat(armedChecks).hasSize(1); // one check serves all that wait

    armedChecks.poll().run();

    assertThat(executor).hasSize(1);
    assertThat(armedChecks).isEmpty();
    executor.poll().run();
    assertThat(ran).containsExactly("completion", "another completion");
  }

  @Test
  void workThatMayWaitQueuedAfterAWorkerRanWaitsOneMoreLazyCheckThenGetsAWorker() {
    RunQueue queue = new RunQueue(executor::add, 16);
    List<String> ran = new ArrayList<>();
    queue.enqueue(work("completion of call 1", ran));
    queue.startLazily(timer);
    queue.enqueue(work("call 2", ran));
    queue.start(1, timer);
    executor.poll().run();
    queue.enqueue(work("completion of call 2", ran)); // queued after that worker's last poll
    queue.startLazily(timer);

    armedChecks.poll().run(); // a worker ran since: the newer completion gets a wait of its own
    assertThat(executor).isEmpty();
    assertThat(armedChecks).hasSize(1);

    armedChecks.poll().run(); // nobody ran meanwhile: now it gets a worker
    assertThat(executor).hasSize(1);
    executor.poll().run();
    assertThat(ran).containsExactly("completion of call 1", "call 2", "completion of call 2");
    assertThat(armedChecks).isEmpty();
  }

  @Test
  void workThatMayWaitGetsAWorkerAtOnceOnceTheServerDrains() {
    RunQueue queue = new RunQueue(executor::add, 16);
    List<String> ran = new ArrayList<>();
    queue.enqueue(work("completion before the drain", ran));
    queue.startLazily(timer);
    assertThat(executor).isEmpty();

    queue.hurry(); // a close follows the drain: a lazy check that fires after it would find nothing
    assertThat(executor).hasSize(1);
    executor.poll().run();

    queue.enqueue(work("completion during the drain", ran));
    queue.startLazily(timer);
    assertThat(executor).hasSize(1);
    executor.poll().run();
    assertThat(ran).containsExactly("completion before the drain", "completion during the drain");
    armedChecks.poll().run(); // the check armed before the drain finds nothing left
    assertThat(executor).isEmpty();
  }

  @Test
  void workThatMayWaitFindingTheQueueFullIsOfferedAgainAndRunsOnce() {
    RunQueue queue = new RunQueue(executor::add, 2);
    List<String> ran = new ArrayList<>();
    Queue<Runnable> retries = new ArrayDeque<>();
    Scheduler retry =
        (task, delayNanos) -> {
          retries.add(task);
          return () -> retries.remove(task);
        };
    Executor lazy = ProtocolWork.lazilyThrough(queue::enqueue, queue, retry, timer);
    queue.enqueue(work("call 1", ran));
    queue.enqueue(work("call 2", ran));
    queue.start(2, timer);

    lazy.execute(() -> ran.add("completion")); // the queue is full: offered again later
    assertThat(retries).hasSize(1);
    executor.poll().run();
    retries.poll().run();
    for (int fired = 0; executor.isEmpty() && fired < 3; fired++) {
      armedChecks.poll().run();
    }
    executor.poll().run();

    assertThat(ran).containsExactly("call 1", "call 2", "completion");
    assertThat(retries).isEmpty();
  }

  @Test
  void aLazyCheckThatCannotArmAgainOnItsStoppedLoopWakesAWorkerAtOnce() {
    List<Runnable> armed = new ArrayList<>();
    Scheduler stopsAfterOne =
        (task, delayNanos) -> {
          if (!armed.isEmpty()) {
            throw new RejectedExecutionException("the loop stopped");
          }
          armed.add(task);
          return () -> {};
        };
    RunQueue queue = new RunQueue(executor::add, 16);
    List<String> ran = new ArrayList<>();
    queue.enqueue(work("completion 1", ran));
    queue.startLazily(stopsAfterOne);
    queue.enqueue(work("call", ran));
    queue.start(1, timer);
    executor.poll().run();
    queue.enqueue(work("completion 2", ran));
    queue.startLazily(stopsAfterOne); // the check armed for completion 1 serves it

    armed.get(0).run(); // a worker ran since: it would wait again, but the loop takes no timer

    assertThat(executor).hasSize(1);
    executor.poll().run();
    assertThat(ran).containsExactly("completion 1", "call", "completion 2");
  }

  @Test
  void aDrainingServerLearnsWhenEverythingQueuedWasTakenByADrainer() {
    RunQueue queue = new RunQueue(executor::add, 16);
    List<String> ran = new ArrayList<>();
    assertThat(queue.emptied()).isDone();

    queue.enqueue(work("completion", ran));
    queue.startLazily(timer);
    var emptied = queue.emptied();
    assertThat(emptied).isNotDone();
    assertThat(executor).hasSize(1); // the close waits for it: it need not wait for a lazy check

    executor.poll().run();
    assertThat(emptied).isDone();
    assertThat(ran).containsExactly("completion");
  }

  @Test
  void aQueueWhoseExecutorTakesNoDrainerIsEmptiedOnceItRefusedWhatWaited() {
    RunQueue queue =
        new RunQueue(
            task -> {
              throw new RejectedExecutionException("the executor was shut down");
            },
            16);
    List<String> ran = new ArrayList<>();
    queue.enqueue(work("completion", ran));
    queue.startLazily(timer);

    assertThat(queue.emptied()).isDone(); // a graceful shutdown need not wait out its grace
    assertThat(ran).containsExactly("completion refused");
  }

  @Test
  void aClosedQueueIsEmptiedAtOnce() {
    RunQueue queue = new RunQueue(executor::add, 16);
    List<String> ran = new ArrayList<>();
    queue.enqueue(work("completion", ran));
    queue.close();

    assertThat(queue.emptied()).isDone();
    assertThat(ran).containsExactly("completion refused");
  }

  @Test
  void workThatMayWaitFromManyThreadsRunsExactlyOnceEachOnARealPoolAndTimer() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    ScheduledExecutorService loops = Executors.newScheduledThreadPool(2);
    ExecutorService submitters = Executors.newFixedThreadPool(4);
    try {
      RunQueue queue = new RunQueue(pool, 64); // small: some work finds it full and is retried
      Scheduler loopTimer =
          (task, delay) -> {
            var f = loops.schedule(task, delay, TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
          };
      Executor lazy = ProtocolWork.lazilyThrough(queue::enqueue, queue, loopTimer, loopTimer);
      Executor eager = ProtocolWork.through(queue::enqueue, queue, loopTimer, loopTimer);
      int perThread = 5_000;
      AtomicIntegerArray ranTimes = new AtomicIntegerArray(4 * perThread);
      List<Future<?>> submitted = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int first = t * perThread;
        submitted.add(
            submitters.submit(
                () -> {
                  for (int i = first; i < first + perThread; i++) {
                    int index = i;
                    (i % 97 == 0 ? eager : lazy).execute(() -> ranTimes.incrementAndGet(index));
                  }
                }));
      }
      for (Future<?> f : submitted) {
        f.get(10, TimeUnit.SECONDS);
      }

      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                for (int i = 0; i < ranTimes.length(); i++) {
                  if (ranTimes.get(i) == 0) {
                    return false;
                  }
                }
                return true;
              });
      for (int i = 0; i < ranTimes.length(); i++) {
        assertThat(ranTimes.get(i)).as("work %d", i).isEqualTo(1);
      }
    } finally {
      submitters.shutdownNow();
      loops.shutdownNow();
      pool.shutdownNow();
    }
  }

  @Test
  void callsStillQueuedBehindABlockedCallWhenTheStallCheckFiresGetAnotherWorker() {
    List<Integer> askedWhenEachRan = new ArrayList<>();
    Dispatcher[] self = new Dispatcher[1];
    // Call 1 "blocks": while it runs, a second burst arrives and the stall check's wait passes.
    Dispatcher d =
        recordingDispatcher(
            askedWhenEachRan,
            id -> {
              if (id == 1) {
                self[0].dispatch(request(2), Peer.UNKNOWN, responder, null);
                self[0].dispatch(request(3), Peer.UNKNOWN, responder, null);
                self[0].startQueued(2, timer);
                assertThat(executor)
                    .isEmpty(); // a worker is busy (this one): no wake-up for the burst
                armedChecks.poll().run();
              }
            });
    self[0] = d;
    d.dispatch(request(1), Peer.UNKNOWN, responder, null);
    d.startQueued(1, timer);

    executor.poll().run();

    // The check found calls 2 and 3 waiting: it asked for one more worker, and from then on the
    // busy worker asked before each call that had others behind it (one ask pending at a time).
    assertThat(askedWhenEachRan).containsExactly(0, 1, 1);
    assertThat(answers).extracting(Response::requestId).containsExactly(1, 2, 3);
    assertThat(armedChecks).hasSize(1); // re-armed while calls stayed queued
    executor.poll().run(); // the worker asked for finds nothing left
    armedChecks.poll().run();
    assertThat(executor).isEmpty();
    assertThat(armedChecks).isEmpty();
  }

  @Test
  void aBacklogThatKeepsMovingGetsOneMoreWorkerPerStallCheckWhichDoesNotSpreadOut() {
    List<Integer> askedWhenEachRan = new ArrayList<>();
    // The first worker finished call 1, yet calls 3 and 4 are still queued when the check fires:
    // a backlog, not a blocked call. The check asks for one more worker; that worker asks for no
    // other before each call (a blocked backlog would, see the test above).
    Dispatcher d =
        recordingDispatcher(
            askedWhenEachRan,
            id -> {
              if (id == 2) {
                armedChecks.poll().run();
                assertThat(executor).hasSize(1);
                executor
                    .poll()
                    .run(); // the second worker runs calls 3 and 4 while the first is in call 2
              }
            });
    for (int id = 1; id <= 4; id++) {
      d.dispatch(request(id), Peer.UNKNOWN, responder, null);
    }
    d.startQueued(4, timer);

    executor.poll().run();

    assertThat(askedWhenEachRan).containsExactly(0, 0, 0, 0);
    assertThat(answers).extracting(Response::requestId).containsExactly(1, 3, 4, 2);
    assertThat(executor).isEmpty();
    armedChecks.poll().run(); // re-armed while calls were queued; by now none is
    assertThat(armedChecks).isEmpty();
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
    Dispatcher d =
        dispatcher(
            task -> {
              throw new java.util.concurrent.RejectedExecutionException("full");
            },
            16);
    d.dispatch(request(1), Peer.UNKNOWN, responder);
    d.dispatch(request(2), Peer.UNKNOWN, responder);

    assertThat(runs).hasValue(0);
    assertThat(answers).extracting(Response::requestId).containsExactly(1, 2);
    assertThat(statuses()).containsOnly(Status.REFUSED);
  }

  @Test
  void everyCallIsAnsweredOnceAndRunAtMostOnceWithConcurrentSubmittersAndWorkers()
      throws Exception {
    int submitters = 4;
    int perSubmitter = 5_000;
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(2, 8, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
    ExecutorService loops = Executors.newFixedThreadPool(submitters);
    Map<Integer, Status> answered = new ConcurrentHashMap<>();
    AtomicInteger twice = new AtomicInteger();
    Responder recording =
        new Responder() {
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
        sent.add(
            loops.submit(
                () -> {
                  for (int i = 1; i <= perSubmitter; i++) {
                    d.dispatch(request(base + i), Peer.UNKNOWN, recording);
                  }
                }));
      }
      for (Future<?> f : sent) {
        f.get(30, TimeUnit.SECONDS);
      }

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> answered.size() == submitters * perSubmitter);
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
