package dev.tether.cli.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The figures of one demo run, client side and server side, taken after every caller stopped.
 * Keeping both sides lets the summary check one against the other instead of trusting either.
 *
 * @param scenario what happened to the cluster, and what the run must show
 * @param callers how many callers called
 * @param planned how long the callers were meant to call
 * @param elapsed how long they did call, from start until the last one stopped
 * @param callTimeout the invocation timeout of every call
 * @param warmUpCallsPerServer calls made to each server before the clock started, not counted
 * @param proxy the proxy string the client used, listing every server
 * @param timeline what happened when
 * @param operations client-side outcomes per operation, failures by exception
 * @param servers server-side counts next to what the client heard from each server
 * @param incrementFailuresThatMayHaveExecuted failed increments whose exception says they may have
 *     run
 * @param counterValue the shared counter's final value in the store
 * @param getsChecked gets whose answer could be compared with the caller's own last put
 * @param getsMismatched of those, the ones that returned something else
 * @param callersStoppedInTime false when a caller was still inside a call at the end
 */
public record DemoReport(
    Scenario scenario,
    int callers,
    Duration planned,
    Duration elapsed,
    Duration callTimeout,
    int warmUpCallsPerServer,
    String proxy,
    List<Timeline.Event> timeline,
    List<OperationCounts> operations,
    List<ServerCounts> servers,
    long incrementFailuresThatMayHaveExecuted,
    long counterValue,
    long getsChecked,
    long getsMismatched,
    boolean callersStoppedInTime) {

  public DemoReport {
    timeline = List.copyOf(timeline);
    operations = List.copyOf(operations);
    servers = List.copyOf(servers);
  }

  /** What a run was and how it went, apart from the counts; the fields of the same names above. */
  record Run(
      Scenario scenario,
      int callers,
      Duration planned,
      Duration elapsed,
      Duration callTimeout,
      int warmUpCallsPerServer,
      String proxy,
      List<Timeline.Event> timeline,
      boolean callersStoppedInTime) {}

  /**
   * The report of {@code run}: the callers' side from {@code tally}, the servers' side from {@code
   * cluster} (counted since its nodes last started counting), {@code counterValue} the shared
   * counter's growth over the same time. Call once every caller stopped.
   */
  static DemoReport collect(Run run, DemoCluster cluster, ClientTally tally, long counterValue) {
    List<OperationCounts> operations = new ArrayList<>();
    for (Operation op : Operation.values()) {
      operations.add(
          new OperationCounts(op.label, op.idempotent, tally.ok(op), tally.failuresByKind(op)));
    }
    Map<String, Long> answeredBy = tally.answeredBy();
    List<ServerCounts> servers = new ArrayList<>();
    for (DemoCluster.Node node : cluster.nodes()) {
      servers.add(
          new ServerCounts(
              node.name(),
              node.describeState(),
              node.served(),
              answeredBy.getOrDefault(node.name(), 0L),
              node.incrementsExecuted()));
    }
    return new DemoReport(
        run.scenario(),
        run.callers(),
        run.planned(),
        run.elapsed(),
        run.callTimeout(),
        run.warmUpCallsPerServer(),
        run.proxy(),
        run.timeline(),
        operations,
        servers,
        tally.incrementFailuresThatMayHaveExecuted(),
        counterValue,
        tally.getsChecked(),
        tally.getsMismatched(),
        run.callersStoppedInTime());
  }

  /**
   * What the callers were told about one operation.
   *
   * @param failuresByKind failed calls by exception ({@link ClientTally#kindOf}); they sum to
   *     {@link #failed()}
   */
  public record OperationCounts(
      String name, boolean idempotent, long ok, Map<String, Long> failuresByKind) {
    public OperationCounts {
      failuresByKind = Map.copyOf(failuresByKind);
    }

    public long failed() {
      return failuresByKind.values().stream().mapToLong(Long::longValue).sum();
    }

    public long total() {
      return ok + failed();
    }
  }

  /**
   * One server as both sides saw it, summed over every server process that listened on its port.
   *
   * @param state "running", or how and when it last stopped or restarted
   * @param served calls whose service code ran there (server count)
   * @param answeredOk successful replies the client got from it (client count)
   * @param incrementsExecuted increments it applied to the store (server count)
   */
  public record ServerCounts(
      String name, String state, long served, long answeredOk, long incrementsExecuted) {
    /** Calls that ran here but whose answer never reached a caller as a success. */
    public long unanswered() {
      return served - answeredOk;
    }
  }

  public long ok() {
    return operations.stream().mapToLong(OperationCounts::ok).sum();
  }

  public long failed() {
    return operations.stream().mapToLong(OperationCounts::failed).sum();
  }

  public long total() {
    return ok() + failed();
  }

  /** Failed calls of every operation by exception, sorted by name. */
  public Map<String, Long> failuresByKind() {
    Map<String, Long> out = new TreeMap<>();
    operations.forEach(o -> o.failuresByKind().forEach((kind, n) -> out.merge(kind, n, Long::sum)));
    return out;
  }

  /** Failed calls by exception, of the idempotent operations only or of the others only. */
  public Map<String, Long> failuresByKind(boolean idempotent) {
    Map<String, Long> out = new TreeMap<>();
    operations.stream()
        .filter(o -> o.idempotent() == idempotent)
        .forEach(o -> o.failuresByKind().forEach((kind, n) -> out.merge(kind, n, Long::sum)));
    return out;
  }

  public long idempotentTotal() {
    return operations.stream()
        .filter(OperationCounts::idempotent)
        .mapToLong(OperationCounts::total)
        .sum();
  }

  public long idempotentOk() {
    return operations.stream()
        .filter(OperationCounts::idempotent)
        .mapToLong(OperationCounts::ok)
        .sum();
  }

  public long idempotentFailed() {
    return operations.stream()
        .filter(OperationCounts::idempotent)
        .mapToLong(OperationCounts::failed)
        .sum();
  }

  /**
   * Idempotent calls that ran on some server: every call the callers make is a put, a get or an
   * increment, so what the servers served beyond increments is idempotent. A retried call may count
   * twice here, which is harmless for an idempotent one.
   */
  public long idempotentExecuted() {
    return served() - incrementsExecuted();
  }

  /** Calls that ran on some server, summed over the servers. */
  public long served() {
    return servers.stream().mapToLong(ServerCounts::served).sum();
  }

  public long answeredOk() {
    return servers.stream().mapToLong(ServerCounts::answeredOk).sum();
  }

  public long incrementsExecuted() {
    return servers.stream().mapToLong(ServerCounts::incrementsExecuted).sum();
  }

  public long incrementsAcknowledged() {
    return increments().ok();
  }

  /**
   * Failed increments whose connection was lost after the request was sent ({@link
   * ClientTally#LOST_AFTER_SEND}).
   */
  public long incrementsLostAfterSend() {
    return increments().failuresByKind().getOrDefault(ClientTally.LOST_AFTER_SEND, 0L);
  }

  /**
   * Increments that ran more often than the callers can know of: executed, minus acknowledged,
   * minus failures that said they may have run; never below 0.
   */
  public long duplicateIncrements() {
    return Math.max(
        0, incrementsExecuted() - incrementsAcknowledged() - incrementFailuresThatMayHaveExecuted);
  }

  private OperationCounts increments() {
    return operations.stream()
        .filter(o -> o.name().equals(Operation.INCREMENT.label))
        .findFirst()
        .orElse(new OperationCounts(Operation.INCREMENT.label, false, 0, Map.of()));
  }

  /**
   * The at-most-once check: every acknowledged increment ran, and every increment that ran without
   * being acknowledged belongs to a caller that was told it may have run. Anything else would be an
   * increment lost or doubled behind the callers' backs.
   */
  public boolean incrementsAccountedFor() {
    long executed = incrementsExecuted();
    long acknowledged = incrementsAcknowledged();
    return acknowledged <= executed
        && executed <= acknowledged + incrementFailuresThatMayHaveExecuted
        && counterValue == executed;
  }

  /**
   * The scenario's expectations judged against this run, in the scenario's order; empty when it has
   * none.
   */
  public List<Verdict> verdicts() {
    return scenario.expectations().stream().map(e -> e.judge(this)).toList();
  }

  /** True when every expectation of the scenario was met (also when it has none). */
  public boolean expectationsMet() {
    return verdicts().stream().allMatch(Verdict::met);
  }

  /** Calls per second over the elapsed time. */
  public double callsPerSecond() {
    double seconds = elapsed.toNanos() / 1e9;
    return seconds <= 0 ? 0 : total() / seconds;
  }
}
