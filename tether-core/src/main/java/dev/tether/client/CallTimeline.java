package dev.tether.client;

import dev.tether.CallPhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * Where a call's time went: the start of each phase it waited in, kept only once the call waits (a
 * call answered on its cached connection never makes one). Each phase lasts until the next begins;
 * the last until the deadline. Written by whichever thread holds the call (its connection's loop,
 * the control executor) while the deadline may read it, as the invocation's own state is: the marks
 * are an immutable list replaced whole by one compare-and-set, so no thread waits for another and a
 * reader sees one consistent list.
 */
final class CallTimeline {
  /**
   * One phase's beginning; {@code note} says more in the message ("HELLO not answered"), or is
   * null.
   */
  private record Mark(CallPhase.Kind kind, String endpoint, long startNanos, String note) {}

  /** What a phase learned at the deadline turned out to be. */
  record Wait(CallPhase.Kind kind, String endpoint, String note) {}

  /** Oldest first, never empty; replaced whole, never changed in place. */
  private final AtomicReference<List<Mark>> marks;

  /** A timeline whose first phase began at {@code startNanos}, when the call was made. */
  CallTimeline(CallPhase.Kind first, String endpoint, long startNanos) {
    marks = new AtomicReference<>(List.of(new Mark(first, endpoint, startNanos, null)));
  }

  /** A new phase begins now; the same phase again (same kind and endpoint) goes on instead. */
  void enter(CallPhase.Kind kind, String endpoint, long nowNanos) {
    update(
        now -> {
          Mark last = now.get(now.size() - 1);
          return last.kind() == kind && Objects.equals(last.endpoint(), endpoint)
              ? now
              : withLast(now, false, new Mark(kind, endpoint, nowNanos, null));
        });
  }

  /** What the last phase turned out to be, learned at the deadline: it is named and explained. */
  void clarifyLast(Wait w) {
    update(
        now ->
            withLast(
                now,
                true,
                new Mark(w.kind(), w.endpoint(), now.get(now.size() - 1).startNanos(), w.note())));
  }

  CallPhase.Kind lastKind() {
    List<Mark> now = marks.get();
    return now.get(now.size() - 1).kind();
  }

  private void update(UnaryOperator<List<Mark>> change) {
    List<Mark> before;
    List<Mark> after;
    do {
      before = marks.get();
      after = change.apply(before);
    } while (after != before && !marks.compareAndSet(before, after));
  }

  /** {@code marks} with {@code mark} appended, or in place of the last one. */
  private static List<Mark> withLast(List<Mark> marks, boolean replacingLast, Mark mark) {
    List<Mark> next =
        new ArrayList<>(marks.subList(0, replacingLast ? marks.size() - 1 : marks.size()));
    next.add(mark);
    return List.copyOf(next);
  }

  /** The phases up to {@code endNanos}, oldest first. */
  List<CallPhase> phases(long endNanos) {
    return phases(marks.get(), endNanos);
  }

  private static List<CallPhase> phases(List<Mark> marks, long endNanos) {
    List<CallPhase> out = new ArrayList<>(marks.size());
    for (int i = 0; i < marks.size(); i++) {
      Mark m = marks.get(i);
      long end = i + 1 < marks.size() ? marks.get(i + 1).startNanos() : endNanos;
      out.add(
          new CallPhase(
              m.kind(), m.endpoint(), Duration.ofNanos(Math.max(0, end - m.startNanos()))));
    }
    return out;
  }

  /**
   * The phases in words, for the timeout's message: {@code "CONNECTING tcp -h ... 290 ms (HELLO not
   * answered), ..."}.
   */
  String describe(long endNanos) {
    List<Mark> marks = this.marks.get();
    List<CallPhase> phases = phases(marks, endNanos);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < phases.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(phases.get(i));
      String note = marks.get(i).note();
      if (note != null) {
        sb.append(" (").append(note).append(')');
      }
    }
    return sb.toString();
  }
}
