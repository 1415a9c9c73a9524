package dev.tether.cli.demo;

import static dev.tether.cli.demo.FrozenPeerReport.human;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link FrozenPeerReport} as plain ASCII text: the heartbeat settings in force, what the
 * caller saw before and after the freeze, and the detection time next to its bound.
 */
public final class FrozenPeerPrinter {
  private FrozenPeerPrinter() {}

  /** Prints the summary of {@code r} to {@code out}. */
  public static void print(FrozenPeerReport r, PrintWriter out) {
    out.println();
    line(
        out,
        "client       %s (a fault proxy in front of server-1 at %s)",
        r.proxy(),
        r.serverEndpoint());
    line(
        out,
        "heartbeat    ping after %s without reads (readerIdle), dead after %s without reads (idleTimeout);",
        human(r.readerIdle()),
        human(r.idleTimeout()));
    line(out, "             %s", r.heartbeatSource());
    line(
        out,
        "calls        an increment every %s: %s answered, %s failed before the freeze at %s s%s",
        human(r.scenario().callInterval()),
        SummaryPrinter.count(r.callsOk()),
        SummaryPrinter.count(r.callsFailedBeforeFreeze()),
        SummaryPrinter.seconds(r.frozenAt()),
        r.lastReplyBeforeFreeze() == null
            ? ""
            : "; the last answer came " + millis(r.lastReplyBeforeFreeze()) + " before it");
    line(
        out,
        "after freeze the fault proxy moved %s bytes",
        SummaryPrinter.count(r.bytesForwardedAfterFreeze()));
    if (r.callFailure() == null) {
      line(out, "             the pending increment had not ended after %s", human(r.waited()));
    } else {
      line(
          out,
          "             the pending increment failed after %s: %s",
          human(r.callFailedAfter()),
          r.callFailure());
    }
    if (r.closedAfter() == null) {
      line(out, "             the connection was not CLOSED after %s", human(r.waited()));
    } else {
      line(
          out,
          "             the connection's state became CLOSED after %s",
          human(r.closedAfter()));
    }
    SummaryPrinter.printVerdicts(r.scenario().name(), List.of(r.verdict()), out);
    out.flush();
  }

  private static String millis(Duration d) {
    return d.toMillis() + " ms";
  }

  private static void line(PrintWriter out, String format, Object... args) {
    out.println(String.format(Locale.ROOT, format, args));
  }
}
