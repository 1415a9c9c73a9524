package dev.tether.cli.demo;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.ConnectionLostException;
import dev.tether.IncompatibleServerException;
import dev.tether.NoAvailableNodeException;
import dev.tether.NoEndpointException;
import dev.tether.OperationNotFoundException;
import dev.tether.RequestRefusedException;
import dev.tether.ServiceNotFoundException;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the callers were told, counted on the client side: outcomes per operation, failures by
 * exception, which server answered, and what the increments and reads showed. Thread-safe: every
 * caller records into it at once.
 */
final class ClientTally {
  /**
   * The kind of a failure that says the connection broke after the whole request was sent: the only
   * one a non-idempotent call may end with when Tether follows the at-most-once rule.
   */
  static final String LOST_AFTER_SEND =
      ConnectionLostException.class.getSimpleName() + " mayHaveExecuted=true";

  private final Map<Operation, LongAdder> ok = counters();

  /** Per operation, so the summary can show idempotent calls' failures apart from the others'. */
  private final Map<Operation, Map<String, LongAdder>> failuresByKind = kindCounters();

  private final Map<String, LongAdder> answeredBy = new ConcurrentHashMap<>();
  private final LongAdder incrementFailuresThatMayHaveExecuted = new LongAdder();
  private final LongAdder getsChecked = new LongAdder();
  private final LongAdder getsMismatched = new LongAdder();

  private static Map<Operation, Map<String, LongAdder>> kindCounters() {
    Map<Operation, Map<String, LongAdder>> m = new EnumMap<>(Operation.class);
    for (Operation op : Operation.values()) {
      m.put(op, new ConcurrentHashMap<>());
    }
    return m;
  }

  private static Map<Operation, LongAdder> counters() {
    Map<Operation, LongAdder> m = new EnumMap<>(Operation.class);
    for (Operation op : Operation.values()) {
      m.put(op, new LongAdder());
    }
    return m;
  }

  void succeeded(Operation op, String server) {
    ok.get(op).increment();
    answeredBy.computeIfAbsent(server, s -> new LongAdder()).increment();
  }

  void failed(Operation op, RuntimeException e) {
    failuresByKind.get(op).computeIfAbsent(kindOf(e), k -> new LongAdder()).increment();
    if (op == Operation.INCREMENT && mayHaveExecuted(e)) {
      incrementFailuresThatMayHaveExecuted.increment();
    }
  }

  /** A get whose answer was compared with the value this caller had put. */
  void getChecked(boolean sawWhatWasPut) {
    getsChecked.increment();
    if (!sawWhatWasPut) {
      getsMismatched.increment();
    }
  }

  /** The failure's row in the summary; a lost connection says whether the call may have run. */
  static String kindOf(RuntimeException e) {
    String type = e.getClass().getSimpleName();
    return e instanceof ConnectionLostException lost
        ? type + " mayHaveExecuted=" + lost.mayHaveExecuted()
        : type;
  }

  /**
   * Whether a failed non-idempotent call may have run on a server. Exact for such calls because
   * Tether retries them only while no attempt can have run (the at-most-once rule); an idempotent
   * call may have run on an earlier attempt whatever its last failure says.
   */
  static boolean mayHaveExecuted(RuntimeException e) {
    // The runtime knows whether the request was whole on the wire when the connection broke.
    if (e instanceof ConnectionLostException lost) {
      return lost.mayHaveExecuted();
    }
    // No connection, so no request reached a server.
    if (e instanceof ConnectFailedException
        || e instanceof ConnectTimeoutException
        || e instanceof NoEndpointException
        || e instanceof NoAvailableNodeException
        || e instanceof IncompatibleServerException) {
      return false;
    }
    // The server proved it did not run the request, or could not find what to run.
    if (e instanceof RequestRefusedException
        || e instanceof ServiceNotFoundException
        || e instanceof OperationNotFoundException) {
      return false;
    }
    // Timeouts, remote errors, anything unexpected: it may have run.
    return true;
  }

  long ok(Operation op) {
    return ok.get(op).sum();
  }

  long failed(Operation op) {
    return failuresByKind.get(op).values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Failures of every operation by kind. */
  Map<String, Long> failuresByKind() {
    Map<String, Long> out = new TreeMap<>();
    for (Operation op : Operation.values()) {
      failuresByKind(op).forEach((kind, n) -> out.merge(kind, n, Long::sum));
    }
    return out;
  }

  /** Failures of {@code op} by kind. */
  Map<String, Long> failuresByKind(Operation op) {
    return snapshot(failuresByKind.get(op));
  }

  Map<String, Long> answeredBy() {
    return snapshot(answeredBy);
  }

  long incrementFailuresThatMayHaveExecuted() {
    return incrementFailuresThatMayHaveExecuted.sum();
  }

  long getsChecked() {
    return getsChecked.sum();
  }

  long getsMismatched() {
    return getsMismatched.sum();
  }

  private static Map<String, Long> snapshot(Map<String, LongAdder> counters) {
    Map<String, Long> out = new TreeMap<>();
    counters.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
