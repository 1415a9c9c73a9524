package dev.tether.cli.demo;

import static dev.tether.cli.demo.SummaryPrinter.count;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Renders a {@link ShowcaseReport} as one screen: per phase a line of counts and the verdicts
 * {@link SummaryPrinter} prints for a single scenario, then one line for the whole run.
 */
public final class ShowcasePrinter {
  private ShowcasePrinter() {}

  public static void print(ShowcaseReport r, PrintWriter out) {
    for (int i = 0; i < r.phases().size(); i++) {
      ShowcaseReport.PhaseReport p = r.phases().get(i);
      DemoReport d = p.report();
      out.println();
      out.println(
          String.format(
              Locale.ROOT,
              "phase %d      %s: %s calls (%s idempotent), %s failed; %s increments executed, %s acknowledged;"
                  + " %s retries, %s s",
              i + 1,
              p.phase().name(),
              count(d.total()),
              count(d.idempotentTotal()),
              count(d.failed()),
              count(d.incrementsExecuted()),
              count(d.incrementsAcknowledged()),
              count(p.evidence().retries()),
              SummaryPrinter.seconds(d.elapsed())));
      SummaryPrinter.printVerdicts(p.phase().name(), p.verdicts(), out);
    }
    long handled = r.phases().stream().filter(p -> p.handled().met()).count();
    long met = r.phases().stream().filter(ShowcaseReport.PhaseReport::met).count();
    out.println();
    out.println(
        String.format(
            Locale.ROOT,
            "showcase     %s: %d of %d phases handled, %d of %d phases met every expectation",
            r.expectationsMet() ? "PASS" : "FAIL",
            handled,
            r.phases().size(),
            met,
            r.phases().size()));
    out.flush();
  }
}
