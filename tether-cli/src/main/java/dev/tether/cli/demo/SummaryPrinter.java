package dev.tether.cli.demo;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link DemoReport} as one screen of plain ASCII text. It prints figures from both sides
 * and the checks between them, and says so plainly when a check fails instead of hiding it.
 */
public final class SummaryPrinter {
  private SummaryPrinter() {}

  /** Prints the summary of {@code r} to {@code out}. */
  public static void print(DemoReport r, PrintWriter out) {
    printHeader(r, out);
    printCalls(r, out);
    printFailures(r, out);
    printServers(r, out);
    printIncrements(r, out);
    printIdempotentExecutions(r, out);
    printReads(r, out);
    line(
        out,
        "elapsed      %s s, %s calls/s%s",
        seconds(r.elapsed()),
        count(Math.round(r.callsPerSecond())),
        r.callersStoppedInTime() ? "" : " (a caller was still inside a call at the end)");
    printVerdicts(r.scenario().name(), r.verdicts(), out);
    out.flush();
  }

  private static void printHeader(DemoReport r, PrintWriter out) {
    out.println();
    line(out, "client       %s", r.proxy());
    line(
        out,
        "             per-request balancing, invocation timeout %s s; %d warm-up calls per server"
            + " not counted",
        seconds(r.callTimeout()),
        r.warmUpCallsPerServer());
  }

  private static void printCalls(DemoReport r, PrintWriter out) {
    out.println();
    line(out, "%-29s %12s %12s %12s", "calls (client side)", "total", "ok", "failed");
    for (DemoReport.OperationCounts op : r.operations()) {
      line(
          out,
          "  %-10s %-16s %12s %12s %12s",
          op.name(),
          op.idempotent() ? "idempotent" : "not idempotent",
          count(op.total()),
          count(op.ok()),
          count(op.failed()));
    }
    line(out, "  %-27s %12s %12s %12s", "all", count(r.total()), count(r.ok()), count(r.failed()));
  }

  private static void printFailures(DemoReport r, PrintWriter out) {
    if (r.failuresByKind().isEmpty()) {
      line(out, "failures     none");
      return;
    }
    // Idempotent calls apart from the others: Tether may retry only the former after a send, so
    // the two columns tell different stories about the same exception.
    line(out, "%-48s %10s %14s", "failures by exception", "idempotent", "not idempotent");
    Map<String, Long> idempotent = r.failuresByKind(true);
    Map<String, Long> notIdempotent = r.failuresByKind(false);
    // Sorted by name, so the two ConnectionLostException rows sit together.
    for (String kind : r.failuresByKind().keySet()) {
      line(
          out,
          "  %-46s %10s %14s",
          kind,
          count(idempotent.getOrDefault(kind, 0L)),
          count(notIdempotent.getOrDefault(kind, 0L)));
    }
  }

  private static void printServers(DemoReport r, PrintWriter out) {
    out.println();
    line(
        out,
        "%-12s %-18s %12s %12s %12s",
        "servers",
        "state",
        "served",
        "answered ok",
        "no answer");
    for (DemoReport.ServerCounts s : r.servers()) {
      line(
          out,
          "  %-10s %-18s %12s %12s %12s",
          s.name(),
          s.state(),
          count(s.served()),
          count(s.answeredOk()),
          count(s.unanswered()));
    }
    line(
        out,
        "  %-29s %12s %12s %12s",
        "all",
        count(r.served()),
        count(r.answeredOk()),
        count(r.served() - r.answeredOk()));
    line(out, "             served: counted by the server; answered ok: counted by the client");
    if (r.served() != r.answeredOk()) {
      line(
          out,
          "             no answer: ran, but the reply died with the connection (an idempotent call");
      line(
          out,
          "             is then retried elsewhere and runs twice; an increment fails instead)");
    }
  }

  private static void printIncrements(DemoReport r, PrintWriter out) {
    long executed = r.incrementsExecuted();
    long acknowledged = r.incrementsAcknowledged();
    long mayHave = r.incrementFailuresThatMayHaveExecuted();
    out.println();
    line(
        out,
        "increments   executed on servers %s, acknowledged to callers %s, counter %s",
        count(executed),
        count(acknowledged),
        count(r.counterValue()));
    String check =
        String.format(
            Locale.ROOT,
            "%s <= %s <= %s + %s failed with may-have-executed",
            count(acknowledged),
            count(executed),
            count(acknowledged),
            count(mayHave));
    if (r.incrementsAccountedFor()) {
      line(out, "             %s: none lost or doubled unseen", check);
    } else {
      line(out, "             CHECK FAILED: expected %s, and counter == executed", check);
    }
  }

  private static void printIdempotentExecutions(DemoReport r, PrintWriter out) {
    long executed = r.idempotentExecuted();
    long acknowledged = r.idempotentOk();
    line(
        out,
        "idempotent   executed on servers %s, acknowledged to callers %s%s",
        count(executed),
        count(acknowledged),
        executed > acknowledged
            ? " (a call retried after its reply was lost ran twice: harmless)"
            : "");
  }

  /**
   * The scenario's verdicts, one line each with its evidence, then one line for the whole run;
   * nothing for a scenario that expects nothing.
   */
  static void printVerdicts(String scenario, List<Verdict> verdicts, PrintWriter out) {
    if (verdicts.isEmpty()) {
      return;
    }
    out.println();
    line(out, "expected     what %s must show", scenario);
    for (Verdict v : verdicts) {
      line(out, "  %s  %s: %s", v.label(), v.claim(), v.evidence());
    }
    long met = verdicts.stream().filter(Verdict::met).count();
    line(
        out,
        "verdict      %s: %d of %d expectations met",
        met == verdicts.size() ? "PASS" : "FAIL",
        met,
        verdicts.size());
  }

  private static void printReads(DemoReport r, PrintWriter out) {
    if (r.getsMismatched() == 0) {
      line(
          out,
          "reads        %s gets checked against the caller's own last put: all matched",
          count(r.getsChecked()));
    } else {
      line(
          out,
          "reads        %s gets checked against the caller's own last put: %s returned something else",
          count(r.getsChecked()),
          count(r.getsMismatched()));
    }
  }

  private static void line(PrintWriter out, String format, Object... args) {
    out.println(String.format(Locale.ROOT, format, args));
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f", d.toNanos() / 1e9);
  }
}
