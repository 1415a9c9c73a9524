package dev.tether.cli.demo;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The showcase's live view: a table of lines redrawn in place on a terminal (ANSI cursor moves),
 * with timeline events printed above it as they happen; anywhere else (a pipe, a CI log, a test)
 * the same table printed as plain lines now and then, so the log stays readable.
 */
final class LiveTable implements AutoCloseable {
  /** How often a terminal's table is redrawn. */
  static final Duration TERMINAL_REFRESH = Duration.ofMillis(250);

  /** How often the table is printed when nothing can redraw it. */
  static final Duration PLAIN_REFRESH = Duration.ofSeconds(2);

  private final PrintWriter out;
  private final boolean ansi;
  private final Supplier<List<String>> rows;
  private final ScheduledExecutorService refresher;

  /** Lines of the table on screen now, to move back over; only with ANSI. Guarded by this. */
  private int linesDrawn;

  /**
   * Starts refreshing at once.
   *
   * @param ansi true when {@code out} is a terminal that understands cursor moves
   * @param rows the table as it is now; called on the refresher thread
   */
  LiveTable(PrintWriter out, boolean ansi, Supplier<List<String>> rows) {
    this.out = out;
    this.ansi = ansi;
    this.rows = rows;
    this.refresher =
        Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("demo-table", true));
    long periodMillis = (ansi ? TERMINAL_REFRESH : PLAIN_REFRESH).toMillis();
    refresher.scheduleAtFixedRate(this::draw, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** Prints a timeline event; on a terminal above the table, which is drawn again below it. */
  synchronized void event(Timeline.Event event) {
    erase();
    out.printf(Locale.ROOT, "  %6.2f s  %s%n", event.at().toNanos() / 1e9, event.what());
    if (ansi) {
      drawRows();
    }
    out.flush();
  }

  /** Draws the table now: in place on a terminal, as new lines elsewhere. */
  synchronized void draw() {
    erase();
    drawRows();
    if (!ansi) {
      linesDrawn = 0;
    }
    out.flush();
  }

  private void drawRows() {
    List<String> lines = rows.get();
    lines.forEach(out::println);
    linesDrawn = lines.size();
  }

  /** Moves back to where the table began and clears to the end of the screen; only with ANSI. */
  private void erase() {
    if (ansi && linesDrawn > 0) {
      out.print("\033[" + linesDrawn + "F\033[J");
    }
    linesDrawn = 0;
  }

  /** Stops refreshing; what was drawn last stays on the screen. */
  @Override
  public void close() {
    refresher.shutdownNow();
  }
}
