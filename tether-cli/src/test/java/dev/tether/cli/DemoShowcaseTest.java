package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DemoShowcaseTest {
  private static final List<String> PHASES =
      List.of(
          "abrupt kill",
          "freeze",
          "graceful drain",
          "rolling restart",
          "stream resume",
          "primary failover");

  /** "phase 2 freeze: 2,544 calls (2,037 idempotent), 2 failed; ..." */
  private static final Pattern PHASE =
      Pattern.compile(
          "^phase (\\d)      ([a-z ]+): ([\\d,]+) calls \\(([\\d,]+) idempotent\\), ([\\d,]+) failed;.*$");

  private static final Pattern VERDICT = Pattern.compile("^  (PASS|FAIL)  ([^:]+): (.*)$");

  /** The stream phase's handled verdict, with the stream's figures. */
  private static final Pattern STREAM_RODE_THROUGH =
      Pattern.compile(
          "PASS  the live stream rode through the reset: ([\\d,]+) items, none twice, none lost, resumed in (\\d+) ms"
              + " \\(([\\d,]+) before the reset, ([\\d,]+) after\\)");

  @Test
  void theDefaultDemoIsTheShowcaseAndEveryPhaseIsHandledWithoutADuplicateOrAFailedIdempotentCall() {
    CliRun run = CliRun.run("demo", "--seconds", "12");

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("scenario showcase")
        .contains("behind fault proxies")
        .containsPattern("status page: http://127\\.0\\.0\\.1:\\d+/")
        .containsSubsequence(
            "phase 1/6, abrupt kill",
            "server-1 closed abruptly",
            "server-1 restarted on the same port",
            "phase 2/6, freeze",
            "server-2's network frozen",
            "server-2's network flows again",
            "phase 3/6, graceful drain",
            "server-3 stopped gracefully",
            "phase 4/6, rolling restart",
            "server-1 stopped gracefully",
            "server-3 stopped gracefully",
            "phase 5/6, stream resume",
            "STREAM_OPENED: a live stream from server-2",
            "server-2's connections reset (RST both ways)",
            "STREAM_RESUMED: the stream went on over a new connection",
            "stream cancelled as the phase ends: ",
            "phase 6/6, primary failover",
            "servers announce server-1 as primary",
            "server-1's host crashed");
    // Not a terminal: the live table comes as plain lines, never as cursor moves.
    assertThat(run.out()).doesNotContain("\033[").contains("calls ok").contains("retries ");

    Map<String, List<String>> verdicts = verdictsByPhase(run.out());
    assertThat(verdicts).containsOnlyKeys(PHASES);
    verdicts.forEach(
        (phase, lines) ->
            assertThat(lines)
                .as(phase)
                .hasSize(5)
                .allSatisfy(v -> assertThat(v).startsWith("PASS")));
    for (List<String> lines : verdicts.values()) {
      assertThat(lines)
          .anySatisfy(
              v ->
                  assertThat(v)
                      .matches(
                          "PASS  idempotent calls never fail while a server is up: 0 of [\\d,]+ idempotent calls failed"));
      assertThat(lines)
          .anySatisfy(
              v -> assertThat(v).contains("no increment runs twice").contains("0 duplicates"));
      assertThat(lines)
          .anySatisfy(v -> assertThat(v).startsWith("PASS  every call completed: all "));
    }
    assertThat(verdicts.get("freeze").get(0)).contains("HEARTBEAT_TIMEOUT from server-2");
    assertThat(verdicts.get("primary failover").get(0)).contains("alternateWasUsed()=true");
    Matcher stream = STREAM_RODE_THROUGH.matcher(verdicts.get("stream resume").get(0));
    assertThat(stream.matches()).as(verdicts.get("stream resume").get(0)).isTrue();
    assertThat(number(stream.group(3))).as("items before the reset").isPositive();
    assertThat(number(stream.group(4))).as("items after the resume").isPositive();
    assertThat(number(stream.group(3)) + number(stream.group(4)))
        .isEqualTo(number(stream.group(1)));
    assertThat(run.out())
        .contains("showcase     PASS: 6 of 6 phases handled, 6 of 6 phases met every expectation");
  }

  @Test
  void theShowcaseRefusesZooKeeperRatherThanIgnoringIt() {
    CliRun run = CliRun.run("demo", "--zookeeper", "embedded");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("--zookeeper is for the other cluster scenarios, not for scenario showcase");
  }

  /**
   * Each phase's verdict lines, after checking its line of counts: calls were made, and the
   * idempotent ones are among them.
   */
  private static Map<String, List<String>> verdictsByPhase(String out) {
    Map<String, List<String>> verdicts = new LinkedHashMap<>();
    List<String> current = null;
    for (String line : out.lines().toList()) {
      Matcher phase = PHASE.matcher(line);
      Matcher verdict = VERDICT.matcher(line);
      if (phase.matches()) {
        assertThat(Integer.parseInt(phase.group(1))).isEqualTo(verdicts.size() + 1);
        long calls = number(phase.group(3));
        assertThat(calls).as(line).isPositive().isGreaterThan(number(phase.group(4)));
        current = new ArrayList<>();
        verdicts.put(phase.group(2), current);
      } else if (verdict.matches() && current != null) {
        current.add(line.substring(2));
      }
    }
    return verdicts;
  }

  private static long number(String digits) {
    return Long.parseLong(digits.replace(",", ""));
  }
}
