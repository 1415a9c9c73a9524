package dev.tether.chaos;

import dev.tether.RemoteException;
import dev.tether.StreamLostException;
import dev.tether.TetherException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Every stream of a chaos run, by stream id: what its subscriber received, checked by the numbers
 * the server put on the items (a number lower than the next expected came twice; a higher one
 * skipped some), how many times the client resumed it (its {@code STREAM_RESUMED} events), and how
 * it ended. {@link #judge()} turns them into {@link StreamTotals}: no item twice, none skipped, a
 * resumed stream loses nothing, and a stream that could not go on says so with {@link
 * StreamLostException} and the count it delivered.
 *
 * <p>Capacity is fixed up front; {@link #open} returns -1 once it is used up. Any thread may use
 * it.
 */
public final class StreamLedger {
  /** What one stream's subscriber saw; {@code failure} null when it completed. */
  record Received(long items, long duplicates, long gaps, Throwable failure) {}

  /** How a stream ended, as {@link #judge()} classifies it. */
  enum End {
    /** Not ended yet; at the end of a run, a stream that never ended. */
    PENDING,
    /** Completed: every item the service sent should have arrived. */
    COMPLETED,
    /** StreamLostException: a loss the application was told of, with what was delivered. */
    LOST,
    /**
     * Another Tether failure (its opening failed, a timeout): reported, nothing silently missing.
     */
    FAILED,
    /** Anything else: a remote error or a non-Tether exception, never expected from the feed. */
    UNEXPECTED;

    static End of(Throwable failure) {
      Throwable t = Outcome.unwrap(failure);
      if (t == null) {
        return COMPLETED;
      }
      if (t instanceof StreamLostException) {
        return LOST;
      }
      return t instanceof TetherException && !(t instanceof RemoteException) ? FAILED : UNEXPECTED;
    }
  }

  private static final int MAX_EXAMPLES = 20;

  private final int capacity;

  /** How many items the feed sends each stream. */
  private final long itemsPerStream;

  private final AtomicInteger opened = new AtomicInteger();

  /** Streams opened and not yet ended; its monitor wakes {@link #awaitCompleted}. */
  private final OpenCount pending = new OpenCount();

  private final AtomicReferenceArray<Received> received;
  private final AtomicIntegerArray resumes;
  private final AtomicInteger endedTwice = new AtomicInteger();

  public StreamLedger(int capacity, long itemsPerStream) {
    if (capacity < 1 || itemsPerStream < 1) {
      throw new IllegalArgumentException("capacity and items per stream must be positive");
    }
    this.capacity = capacity;
    this.itemsPerStream = itemsPerStream;
    this.received = new AtomicReferenceArray<>(capacity);
    this.resumes = new AtomicIntegerArray(capacity);
  }

  public long itemsPerStream() {
    return itemsPerStream;
  }

  /** Records a new stream before it is opened; returns its id, or -1 when full. */
  public int open() {
    int id = opened.getAndIncrement();
    if (id >= capacity) {
      opened.decrementAndGet();
      return -1;
    }
    pending.opened();
    return id;
  }

  /** The client resumed stream {@code id} over a new connection (a STREAM_RESUMED event). */
  public void resumed(int id) {
    if (id >= 0 && id < opened.get()) {
      resumes.incrementAndGet(id);
    }
  }

  /** Records how stream {@code id} ended and what its subscriber received. */
  public void close(int id, long items, long duplicates, long gaps, Throwable failure) {
    if (!received.compareAndSet(id, null, new Received(items, duplicates, gaps, failure))) {
      endedTwice.incrementAndGet();
      return;
    }
    pending.closed();
  }

  /** Waits at most {@code timeoutNanos} until every stream opened so far has ended. */
  public boolean awaitCompleted(long timeoutNanos) throws InterruptedException {
    return pending.awaitNone(timeoutNanos);
  }

  /** Checks every stream and counts what must never happen. */
  public StreamTotals judge() {
    StreamTotals.Builder totals = new StreamTotals.Builder(itemsPerStream);
    List<String> examples = new ArrayList<>();
    Map<String, Long> failureTypes = new TreeMap<>();
    int n = opened.get();
    for (int id = 0; id < n; id++) {
      Received r = received.get(id);
      boolean wasResumed = resumes.get(id) > 0;
      End end = r == null ? End.PENDING : End.of(r.failure());
      String problem = totals.add(end, r, wasResumed);
      if (r != null && r.failure() != null) {
        Throwable t = Outcome.unwrap(r.failure());
        failureTypes.merge(
            end.name().toLowerCase(java.util.Locale.ROOT) + ": " + t.getClass().getSimpleName(),
            1L,
            Long::sum);
      }
      if (problem != null && examples.size() < MAX_EXAMPLES) {
        examples.add(
            "stream "
                + id
                + (wasResumed ? " (resumed x" + resumes.get(id) + ")" : "")
                + ": "
                + problem
                + (r != null && r.failure() != null
                    ? " (" + Outcome.unwrap(r.failure()) + ")"
                    : ""));
      }
    }
    return totals.build(endedTwice.get(), failureTypes, examples);
  }
}
