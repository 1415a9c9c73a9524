package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.observe.TetherEvent;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShowcaseLiveTableTest {
  private final StringWriter text = new StringWriter();
  private final Timeline.Event killed =
      new Timeline.Event(Duration.ofMillis(1500), "server-1 closed abruptly");

  @Test
  void onATerminalAnEventIsPrintedAboveTheTableWhichIsRedrawnInPlace() {
    try (LiveTable table =
        new LiveTable(new PrintWriter(text), true, () -> List.of("row one", "row two"))) {
      table.draw();
      table.event(killed);
    }

    // Back over the two rows drawn, clear, the event, the rows again below it.
    assertThat(text.toString())
        .contains("row two\n\033[2F\033[J    1.50 s  server-1 closed abruptly\nrow one\nrow two\n");
  }

  @Test
  void elsewhereTheTableIsPrintedAsPlainLinesAndEventsNeverMoveTheCursor() {
    try (LiveTable table = new LiveTable(new PrintWriter(text), false, () -> List.of("row one"))) {
      table.draw();
      table.event(killed);
      table.draw();
    }

    assertThat(text.toString())
        .doesNotContain("\033")
        .containsSubsequence("row one\n", "    1.50 s  server-1 closed abruptly\n", "row one\n");
  }

  @Test
  void aPhaseWhoseStepFailedIsNotHandledEvenWhenTheClientSawEvents() {
    PhaseEvidence evidence =
        new PhaseEvidence(
            Map.of(TetherEvent.Kind.GOAWAY_RECEIVED, Map.of("server-3", 1L)),
            0,
            false,
            List.of("step failed: java.lang.IllegalStateException: server-3 is not running"));

    Verdict v = evidence.noticed("heard GOAWAY", TetherEvent.Kind.GOAWAY_RECEIVED, "server-3");

    assertThat(v.met()).isFalse();
    assertThat(v.evidence()).contains("server-3 is not running");
  }

  @Test
  void aDisruptionTheClientNeverSawFailsItsPhase() {
    PhaseEvidence evidence = new PhaseEvidence(Map.of(), 4, false, List.of());

    Verdict v =
        evidence.noticed("heartbeat found it", TetherEvent.Kind.HEARTBEAT_TIMEOUT, "server-2");

    assertThat(v.met()).isFalse();
    assertThat(v.evidence()).isEqualTo("HEARTBEAT_TIMEOUT from server-2 x0; 4 calls retried");
  }
}
