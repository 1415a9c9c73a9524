package dev.tether.client;

import dev.tether.CallPhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a call's time went: the start of each phase it waited in, kept only once the call waits
 * (a call answered on its cached connection never makes one). Each phase lasts until the next
 * begins; the last until the deadline. Written by whichever thread holds the call (its
 * connection's loop, the control executor) and read at the deadline, so its few methods lock.
 */
final class CallTimeline {
  /** One phase's beginning; {@code note} says more in the message ("HELLO not answered"), or is null. */
  private record Mark(CallPhase.Kind kind, String endpoint, long startNanos, String note) {}

  /** What a phase learned at the deadline turned out to be. */
  record Wait(CallPhase.Kind kind, String endpoint, String note) {}

  private final List<Mark> marks = new ArrayList<>(4);

  /** A timeline whose first phase began at {@code startNanos}, when the call was made. */
  CallTimeline(CallPhase.Kind first, String endpoint, long startNanos) {
    marks.add(new Mark(first, endpoint, startNanos, null));
  }

  /** A new phase begins now; the same phase again (same kind and endpoint) goes on instead. */
  synchronized void enter(CallPhase.Kind kind, String endpoint, long nowNanos) {
    Mark last = marks.get(marks.size() - 1);
    if (last.kind() == kind && java.util.Objects.equals(last.endpoint(), endpoint)) {
      return;
    }
    marks.add(new Mark(kind, endpoint, nowNanos, null));
  }

  /** What the last phase turned out to be, learned at the deadline: it is named and explained. */
  synchronized void clarifyLast(Wait w) {
    Mark last = marks.remove(marks.size() - 1);
    marks.add(new Mark(w.kind(), w.endpoint(), last.startNanos(), w.note()));
  }

  synchronized CallPhase.Kind lastKind() {
    return marks.get(marks.size() - 1).kind();
  }

  /** The phases up to {@code endNanos}, oldest first. */
  synchronized List<CallPhase> phases(long endNanos) {
    List<CallPhase> out = new ArrayList<>(marks.size());
    for (int i = 0; i < marks.size(); i++) {
      Mark m = marks.get(i);
      long end = i + 1 < marks.size() ? marks.get(i + 1).startNanos() : endNanos;
      out.add(new CallPhase(m.kind(), m.endpoint(), Duration.ofNanos(Math.max(0, end - m.startNanos()))));
    }
    return out;
  }

  /** The phases in words, for the timeout's message: {@code "CONNECTING tcp -h ... 290 ms (HELLO not answered), ..."}. */
  synchronized String describe(long endNanos) {
    List<CallPhase> phases = phases(endNanos);
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
