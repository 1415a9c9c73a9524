package dev.tether.cli.demo;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The figures of one demo run, client side and server side, taken after every caller stopped.
 * Keeping both sides lets the summary check one against the other instead of trusting either.
 *
 * @param scenario what happened to the cluster
 * @param callers how many callers called
 * @param planned how long the callers were meant to call
 * @param elapsed how long they did call, from start until the last one stopped
 * @param callTimeout the invocation timeout of every call
 * @param warmUpCallsPerServer calls made to each server before the clock started, not counted
 * @param proxy the proxy string the client used, listing every server
 * @param timeline what happened when
 * @param operations client-side outcomes per operation
 * @param failuresByKind failed calls by exception (a lost connection split by mayHaveExecuted)
 * @param servers server-side counts next to what the client heard from each server
 * @param incrementFailuresThatMayHaveExecuted failed increments whose exception says they may have run
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
    Map<String, Long> failuresByKind,
    List<ServerCounts> servers,
    long incrementFailuresThatMayHaveExecuted,
    long counterValue,
    long getsChecked,
    long getsMismatched,
    boolean callersStoppedInTime) {

  public DemoReport {
    timeline = List.copyOf(timeline);
    operations = List.copyOf(operations);
    failuresByKind = Map.copyOf(failuresByKind);
    servers = List.copyOf(servers);
  }

  /** What the callers were told about one operation. */
  public record OperationCounts(String name, boolean idempotent, long ok, long failed) {
    public long total() {
      return ok + failed;
    }
  }

  /**
   * One server as both sides saw it.
   *
   * @param state "running", or how and when it stopped
   * @param served calls whose service code ran there (server count)
   * @param answeredOk successful replies the client got from it (client count)
   * @param incrementsExecuted increments it applied to the store (server count)
   */
  public record ServerCounts(String name, String state, long served, long answeredOk, long incrementsExecuted) {
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
    return operations.stream().filter(o -> o.name().equals(Operation.INCREMENT.label))
        .mapToLong(OperationCounts::ok).sum();
  }

  /**
   * The at-most-once check: every acknowledged increment ran, and every increment that ran without
   * being acknowledged belongs to a caller that was told it may have run. Anything else would be
   * an increment lost or doubled behind the callers' backs.
   */
  public boolean incrementsAccountedFor() {
    long executed = incrementsExecuted();
    long acknowledged = incrementsAcknowledged();
    return acknowledged <= executed
        && executed <= acknowledged + incrementFailuresThatMayHaveExecuted
        && counterValue == executed;
  }

  /** Calls per second over the elapsed time. */
  public double callsPerSecond() {
    double seconds = elapsed.toNanos() / 1e9;
    return seconds <= 0 ? 0 : total() / seconds;
  }
}
