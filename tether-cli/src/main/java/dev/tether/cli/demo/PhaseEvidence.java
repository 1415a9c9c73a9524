package dev.tether.cli.demo;

import static dev.tether.cli.demo.SummaryPrinter.count;

import dev.tether.observe.TetherEvent;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the client saw during one phase of the showcase, from which the phase's "handled" verdict is
 * judged: its events by kind and server, its retries, whether a proxy ended up on an alternate, and
 * the steps that could not be carried out.
 *
 * @param eventsByServer the client's events of the phase, by kind, then by server name
 * @param alternateWasUsed whether the primary-dialling proxy was on an alternate when the phase
 *     ended
 * @param stepFailures one line per step that threw; empty when every step was performed
 * @param stream what the phase's live stream showed; null when the phase had none
 */
public record PhaseEvidence(
    Map<TetherEvent.Kind, Map<String, Long>> eventsByServer,
    long retries,
    boolean alternateWasUsed,
    List<String> stepFailures,
    StreamFigures stream) {

  /** The evidence of a phase without a live stream. */
  public PhaseEvidence(
      Map<TetherEvent.Kind, Map<String, Long>> eventsByServer,
      long retries,
      boolean alternateWasUsed,
      List<String> stepFailures) {
    this(eventsByServer, retries, alternateWasUsed, stepFailures, null);
  }

  public PhaseEvidence {
    eventsByServer = Map.copyOf(eventsByServer);
    stepFailures = List.copyOf(stepFailures);
  }

  /** Events of {@code kind} from {@code server} during the phase. */
  public long events(TetherEvent.Kind kind, String server) {
    return eventsByServer.getOrDefault(kind, Map.of()).getOrDefault(server, 0L);
  }

  /** Events of {@code kind} during the phase, from any server. */
  public long events(TetherEvent.Kind kind) {
    return eventsByServer.getOrDefault(kind, Map.of()).values().stream()
        .mapToLong(Long::longValue)
        .sum();
  }

  /**
   * Met when every step was performed and the client saw at least one {@code kind} event from each
   * of {@code servers}: the disruption reached the client and was not silently missed.
   */
  public Verdict noticed(String claim, TetherEvent.Kind kind, String... servers) {
    boolean seenFromAll = List.of(servers).stream().allMatch(s -> events(kind, s) > 0);
    String seen =
        List.of(servers).stream()
            .map(s -> kind + " from " + s + " x" + count(events(kind, s)))
            .collect(Collectors.joining(", "));
    return verdict(seenFromAll, claim, seen + "; " + count(retries) + " calls retried");
  }

  /**
   * Met when every step was performed and the live stream resumed after the reset with none of its
   * items twice and none missing; the evidence is the stream's figures.
   */
  public Verdict streamRodeThrough(String claim) {
    if (stream == null) {
      return verdict(false, claim, "the phase watched no stream");
    }
    return verdict(stream.rodeThrough(), claim, stream.describe());
  }

  /** A verdict that also fails when a step could not be carried out, saying which. */
  public Verdict verdict(boolean seen, String claim, String evidence) {
    if (!stepFailures.isEmpty()) {
      return new Verdict(false, claim, String.join("; ", stepFailures));
    }
    return new Verdict(seen, claim, evidence);
  }
}
