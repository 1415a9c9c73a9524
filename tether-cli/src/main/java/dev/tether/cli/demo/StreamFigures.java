package dev.tether.cli.demo;

import static dev.tether.cli.demo.SummaryPrinter.count;

import java.time.Duration;

/**
 * What a live stream of numbered items showed through one phase of the showcase, counted by the
 * client from the numbers the server put on the items: how many arrived, how many came twice, how
 * many went missing, and whether and how fast the stream resumed after the phase's reset.
 *
 * @param server the server the stream came from
 * @param items items delivered to the subscriber
 * @param duplicates items whose number had already arrived
 * @param missing numbers skipped between one item and the next
 * @param resumes STREAM_RESUMED events the client emitted for the stream
 * @param itemsBeforeResume items delivered when the first resume happened
 * @param resumeTime from the reset to the first resume; null when it did not resume after a reset
 * @param failure how the stream ended on its own before the phase cancelled it; null when it did
 *     not
 */
public record StreamFigures(
    String server,
    long items,
    long duplicates,
    long missing,
    long resumes,
    long itemsBeforeResume,
    Duration resumeTime,
    String failure) {

  /**
   * True when the stream delivered items on both sides of a resume, none twice and none missing,
   * and was still open when the phase ended.
   */
  public boolean rodeThrough() {
    return duplicates == 0
        && missing == 0
        && failure == null
        && resumeTime != null
        && itemsBeforeResume > 0
        && items > itemsBeforeResume;
  }

  /**
   * "83 items, none twice, none lost, resumed in 14 ms (41 before the reset, 42 after)", or what
   * went wrong.
   */
  public String describe() {
    StringBuilder s =
        new StringBuilder(count(items))
            .append(items == 1 ? " item, " : " items, ")
            .append(duplicates == 0 ? "none twice" : count(duplicates) + " twice")
            .append(", ")
            .append(missing == 0 ? "none lost" : count(missing) + " lost")
            .append(", ");
    if (resumeTime == null) {
      s.append(resumes == 0 ? "never resumed" : "resumed x" + resumes + " but not after the reset");
    } else {
      s.append("resumed in ")
          .append(resumeTime.toMillis())
          .append(" ms (")
          .append(count(itemsBeforeResume))
          .append(" before the reset, ")
          .append(count(items - itemsBeforeResume))
          .append(" after)");
    }
    if (failure != null) {
      s.append("; ended early: ").append(failure);
    }
    return s.toString();
  }
}
