package dev.tether.chaos;

import dev.tether.StreamLostException;
import java.io.PrintStream;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A stream ledger's totals: streams by how they ended, the items they delivered, and the counts of
 * what must never happen. {@link #violations()} is empty when every stream kept the contract: items
 * in order and at most once, nothing lost across a resume, every loss reported.
 *
 * @param resumed streams the client resumed at least once
 * @param completedAfterResume of those, the ones that then completed with every item
 * @param reportedLosses streams that ended with {@link StreamLostException}: the application knows
 * @param failed streams that ended with another Tether failure (mostly openings during a fault)
 * @param duplicates items that arrived twice (must be 0)
 * @param gaps items skipped inside a stream (must be 0)
 * @param shortCompletions streams that completed without every item (a silent loss; must be 0)
 * @param lostWhenResumed items missing from streams that were resumed, skipped or short (must be 0)
 * @param deliveredMismatches lost streams whose {@code delivered()} differs from what arrived (must
 *     be 0)
 * @param unexpected streams that ended with a remote or non-Tether error (must be 0)
 * @param pending streams that never ended (must be 0)
 * @param endedTwice streams whose subscriber heard two ends (must be 0)
 */
public record StreamTotals(
    long itemsPerStream,
    long streams,
    long completed,
    long resumed,
    long completedAfterResume,
    long reportedLosses,
    long failed,
    long items,
    long duplicates,
    long gaps,
    long shortCompletions,
    long lostWhenResumed,
    long deliveredMismatches,
    long unexpected,
    long pending,
    long endedTwice,
    Map<String, Long> failureTypes,
    List<String> examples) {

  /** One line per broken promise; empty when there is none. */
  public List<String> violations() {
    return new Violations()
        .count(duplicates, "stream items delivered twice")
        .count(gaps, "stream items skipped inside a stream")
        .count(shortCompletions, "streams completed without every item")
        .count(lostWhenResumed, "stream items lost from resumed streams")
        .count(deliveredMismatches, "lost streams whose delivered() is not what arrived")
        .count(unexpected, "streams ended with an unexpected error")
        .count(pending, "streams that never ended")
        .count(endedTwice, "streams that ended twice")
        .lines();
  }

  public void print(PrintStream out) {
    out.printf(
        Locale.ROOT,
        "streams (%d items each, numbered by the server): %d opened, %d completed, %d resumed"
            + " (%d of them then completed whole), %d lost with StreamLostException (reported), %d failed otherwise,"
            + " %d never ended%n",
        itemsPerStream,
        streams,
        completed,
        resumed,
        completedAfterResume,
        reportedLosses,
        failed,
        pending);
    out.printf(
        Locale.ROOT,
        "stream items %d delivered; duplicates %d; gaps %d; completed short %d; lost when resumed %d;"
            + " delivered() mismatches %d; unexpected errors %d%n",
        items,
        duplicates,
        gaps,
        shortCompletions,
        lostWhenResumed,
        deliveredMismatches,
        unexpected);
    if (!failureTypes.isEmpty()) {
      out.println("stream ends by type:");
      failureTypes.forEach((type, n) -> out.printf(Locale.ROOT, "  %-60s %d%n", type, n));
    }
    if (!examples.isEmpty()) {
      out.println("first stream problems:");
      examples.forEach(e -> out.println("  " + e));
    }
  }

  /**
   * Adds streams one by one, each judged as it is added. Not thread-safe: {@link
   * StreamLedger#judge()} owns one.
   */
  static final class Builder {
    private final long itemsPerStream;
    private long streams;
    private long completed;
    private long resumed;
    private long completedAfterResume;
    private long reportedLosses;
    private long failed;
    private long items;
    private long duplicates;
    private long gaps;
    private long shortCompletions;
    private long lostWhenResumed;
    private long deliveredMismatches;
    private long unexpected;
    private long pending;

    Builder(long itemsPerStream) {
      this.itemsPerStream = itemsPerStream;
    }

    /**
     * Counts one stream; returns what is wrong with it, or null. {@code r} is null for a stream
     * that never ended.
     */
    String add(StreamLedger.End end, StreamLedger.Received r, boolean wasResumed) {
      streams++;
      resumed += wasResumed ? 1 : 0;
      if (end == StreamLedger.End.PENDING) {
        pending++;
        return "never ended";
      }
      items += r.items();
      duplicates += r.duplicates();
      gaps += r.gaps();
      // Numbers that never arrived beyond the skipped ones: the end of a stream that completed
      // early.
      long distinct = r.items() - r.duplicates();
      long missingAtEnd =
          end == StreamLedger.End.COMPLETED ? Math.max(0, itemsPerStream - distinct - r.gaps()) : 0;
      if (wasResumed) {
        lostWhenResumed += r.gaps() + missingAtEnd;
      }
      String problem =
          r.duplicates() > 0
              ? r.duplicates() + " items twice"
              : r.gaps() > 0 ? r.gaps() + " items skipped" : null;
      switch (end) {
        case COMPLETED -> {
          completed++;
          if (missingAtEnd > 0) {
            shortCompletions++;
            problem = "completed with " + distinct + " of " + itemsPerStream + " items";
          } else if (wasResumed && problem == null) {
            completedAfterResume++;
          }
        }
        case LOST -> {
          reportedLosses++;
          long delivered = ((StreamLostException) Outcome.unwrap(r.failure())).delivered();
          if (delivered != r.items()) {
            deliveredMismatches++;
            problem = "delivered() says " + delivered + ", " + r.items() + " arrived";
          }
        }
        case FAILED -> failed++;
        case UNEXPECTED -> {
          unexpected++;
          problem = "unexpected error";
        }
        case PENDING -> throw new AssertionError("handled above");
      }
      return problem;
    }

    StreamTotals build(long endedTwice, Map<String, Long> failureTypes, List<String> examples) {
      return new StreamTotals(
          itemsPerStream,
          streams,
          completed,
          resumed,
          completedAfterResume,
          reportedLosses,
          failed,
          items,
          duplicates,
          gaps,
          shortCompletions,
          lostWhenResumed,
          deliveredMismatches,
          unexpected,
          pending,
          endedTwice,
          Collections.unmodifiableMap(new TreeMap<>(failureTypes)),
          List.copyOf(examples));
    }
  }
}
