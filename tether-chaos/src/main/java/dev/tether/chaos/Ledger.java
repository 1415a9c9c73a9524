package dev.tether.chaos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Every call of a chaos run, by request id: what the caller was told ({@link Outcome}) against how
 * often the servers ran it. The id travels in the request's payload; servers report each execution
 * with {@link #executed(int)}. {@link #judge()} turns the two sides into {@link LedgerTotals} and
 * the violations of the at-most-once rule (docs/reliability.md).
 *
 * <p>Capacity is fixed up front (the load is bounded in count): {@link #open} returns -1 once it is
 * used up. Callers, callbacks and servers may use it from any thread; {@link #judge()} reads a
 * consistent view once {@link #awaitCompleted} returned true or the callers were joined.
 */
public final class Ledger {
  /** The most failure messages kept for the report; later ones are counted only. */
  private static final int MAX_MESSAGES = 20_000;

  private static final int MAX_MESSAGE_CHARS = 300;

  /** The most sick answers whose time is kept (a sick node ejected late gives a few hundred). */
  private static final int MAX_SICK_TIMES = 100_000;

  private final int capacity;
  private final IntSupplier outages;
  private final AtomicInteger opened = new AtomicInteger();

  /** Calls opened and not yet closed; guarded by its own monitor for {@link #awaitCompleted}. */
  private final OpenCount pending = new OpenCount();

  private final byte[] kinds;

  /** The {@link #outages} count when the call was opened. */
  private final int[] outagesAtOpen;

  private final AtomicIntegerArray outcomes;
  private final AtomicIntegerArray executions;

  /** 1 when some moment of the call had no node up: an idempotent failure is then excused. */
  private final AtomicIntegerArray excused;

  private final Map<Integer, String> messages = new ConcurrentHashMap<>();
  private final AtomicInteger messageCount = new AtomicInteger();
  private final Map<String, LongAdder> failureTypes = new ConcurrentHashMap<>();
  private final LongAdder unknownExecutions = new LongAdder();
  private final LongAdder completedTwice = new LongAdder();
  private final LongSupplier nanoClock;

  /** When round-robin calls were answered with a sick node's error, on the clock, in slots. */
  private final long[] sickAnswerTimes = new long[MAX_SICK_TIMES];

  private final AtomicInteger sickAnswers = new AtomicInteger();

  /**
   * @param capacity the most calls this ledger can record
   * @param outages how many times so far no node at all was up (see {@link NodeHealth#outages()});
   *     a call opened during one, or spanning one, may fail even when idempotent
   */
  public Ledger(int capacity, IntSupplier outages) {
    this(capacity, outages, System::nanoTime);
  }

  /**
   * @param capacity the most calls this ledger can record
   * @param outages as for {@link #Ledger(int, IntSupplier)}
   * @param nanoClock when calls close, for {@link #sickAnswerTimes()}
   */
  public Ledger(int capacity, IntSupplier outages, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
    this.outages = outages;
    this.kinds = new byte[capacity];
    this.outagesAtOpen = new int[capacity];
    this.outcomes = new AtomicIntegerArray(capacity);
    this.executions = new AtomicIntegerArray(capacity);
    this.excused = new AtomicIntegerArray(capacity);
  }

  /** Records a new call of {@code kind} before it is made; returns its id, or -1 when full. */
  public int open(CallKind kind, boolean noNodeUpNow) {
    int id = opened.getAndIncrement();
    if (id >= capacity) {
      opened.decrementAndGet();
      return -1;
    }
    kinds[id] = (byte) kind.ordinal();
    outagesAtOpen[id] = outages.getAsInt();
    if (noNodeUpNow) {
      excused.set(id, 1);
    }
    pending.opened();
    return id;
  }

  /**
   * Records what the caller of {@code id} was told; {@code failure} is null for {@link Outcome#OK}.
   */
  public void close(int id, Throwable failure) {
    Outcome outcome = failure == null ? Outcome.OK : Outcome.of(failure);
    if (!outcomes.compareAndSet(id, Outcome.PENDING.ordinal(), outcome.ordinal())) {
      completedTwice.increment();
      return;
    }
    if (outages.getAsInt() != outagesAtOpen[id]) {
      excused.set(id, 1);
    }
    if (outcome == Outcome.SICK_ANSWER && CallKind.values()[kinds[id]].balanced) {
      int slot = sickAnswers.getAndIncrement();
      if (slot < MAX_SICK_TIMES) {
        sickAnswerTimes[slot] = nanoClock.getAsLong();
      }
    }
    if (failure != null) {
      Throwable t = Outcome.unwrap(failure);
      failureTypes
          .computeIfAbsent(
              outcome.label + ": " + t.getClass().getSimpleName(), k -> new LongAdder())
          .increment();
      if (messageCount.incrementAndGet() <= MAX_MESSAGES) {
        String message = t.getClass().getSimpleName() + ": " + t.getMessage();
        messages.put(
            id,
            message.length() > MAX_MESSAGE_CHARS
                ? message.substring(0, MAX_MESSAGE_CHARS)
                : message);
      }
    }
    pending.closed();
  }

  /** A server ran request {@code id}; called from service code, before it answers. */
  public void executed(int id) {
    if (id < 0 || id >= opened.get()) {
      unknownExecutions.increment();
      return;
    }
    executions.incrementAndGet(id);
  }

  /**
   * When round-robin calls were told a sick node's error, on the clock, in order; read once the
   * calls completed.
   */
  public long[] sickAnswerTimes() {
    long[] out = Arrays.copyOf(sickAnswerTimes, Math.min(sickAnswers.get(), MAX_SICK_TIMES));
    Arrays.sort(out);
    return out;
  }

  /** The kind of call {@code id}, or null for an id never handed out. */
  public CallKind kindOf(int id) {
    return id >= 0 && id < opened.get() ? CallKind.values()[kinds[id]] : null;
  }

  /** The most calls this ledger can record. */
  public int capacity() {
    return capacity;
  }

  /** How many calls were opened. */
  public int calls() {
    return opened.get();
  }

  /** How many calls are open now. */
  public int pending() {
    return pending.get();
  }

  /** Waits at most {@code timeoutNanos} until every call opened so far was closed. */
  public boolean awaitCompleted(long timeoutNanos) throws InterruptedException {
    return pending.awaitNone(timeoutNanos);
  }

  /** Whether {@code outcome} tells the caller that no server ran the call. */
  private static boolean provesNotRun(Outcome outcome) {
    return outcome == Outcome.NOT_EXECUTED
        || outcome == Outcome.NOT_FOUND
        || outcome == Outcome.SICK_ANSWER;
  }

  /** Compares both sides of every call and counts what the run must never show. */
  public LedgerTotals judge() {
    int n = opened.get();
    long[][] byKind = new long[CallKind.values().length][Outcome.values().length];
    long executionsTotal = 0;
    long duplicates = 0;
    long falseNotExecuted = 0;
    long answeredNotRun = 0;
    long idempotentFailures = 0;
    long excusedFailures = 0;
    long otherFailures = 0;
    long sickAnswersBalanced = 0;
    long sickAnswersPinned = 0;
    long notFoundBalanced = 0;
    long notFoundPinned = 0;
    long lost = 0;
    List<String> examples = new ArrayList<>();
    for (int id = 0; id < n; id++) {
      CallKind kind = CallKind.values()[kinds[id]];
      Outcome outcome = Outcome.values()[outcomes.get(id)];
      int runs = executions.get(id);
      executionsTotal += runs;
      byKind[kind.ordinal()][outcome.ordinal()]++;
      String problem = null;
      if (outcome == Outcome.PENDING) {
        lost++;
        problem = "never completed";
      } else if (!kind.idempotent && runs > 1) {
        duplicates++;
        problem = "non-idempotent call ran " + runs + " times";
      } else if (!kind.idempotent && provesNotRun(outcome) && runs > 0) {
        falseNotExecuted++;
        problem = "reported as not executed but ran " + runs + " time(s)";
      } else if (kind.twoway && outcome == Outcome.OK && runs == 0) {
        answeredNotRun++;
        problem = "answered OK but no server ran it";
      } else if (outcome == Outcome.OTHER_FAILURE) {
        otherFailures++;
        problem = "unexpected failure";
      } else if (outcome == Outcome.SICK_ANSWER) {
        // The service's own answer: not a loss; the report bounds how many the group let through.
        if (kind.balanced) {
          sickAnswersBalanced++;
        } else {
          sickAnswersPinned++;
        }
      } else if (outcome == Outcome.NOT_FOUND) {
        // A pinned proxy's failover list is one deployment: it fails at once (docs/guide.md).
        if (kind.balanced) {
          notFoundBalanced++;
          problem = "failed with SERVICE_NOT_FOUND although peers serve it";
        } else {
          notFoundPinned++;
        }
      } else if (kind.idempotent && outcome != Outcome.OK) {
        if (excused.get(id) == 1) {
          excusedFailures++;
        } else {
          idempotentFailures++;
          problem = "idempotent call failed while a node was up";
        }
      }
      if (problem != null && examples.size() < 20) {
        examples.add(
            "call "
                + id
                + " ("
                + kind.label
                + "): "
                + problem
                + "; told "
                + outcome.label
                + (messages.containsKey(id) ? " (" + messages.get(id) + ")" : ""));
      }
    }
    Map<String, Long> types = new TreeMap<>();
    failureTypes.forEach((k, v) -> types.put(k, v.sum()));
    return new LedgerTotals(
        n,
        byKind,
        executionsTotal,
        duplicates,
        falseNotExecuted,
        answeredNotRun,
        idempotentFailures,
        excusedFailures,
        otherFailures,
        sickAnswersBalanced,
        sickAnswersPinned,
        notFoundBalanced,
        notFoundPinned,
        lost,
        unknownExecutions.sum(),
        completedTwice.sum(),
        types,
        examples);
  }
}
