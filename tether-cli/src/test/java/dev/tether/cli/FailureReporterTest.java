package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Attempt;
import dev.tether.ConnectionLostException;
import dev.tether.TetherException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

class FailureReporterTest {
  private final StringWriter err = new StringWriter();

  private int report(Exception failure, String... args) {
    CommandLine tether = TetherCommand.newCommandLine();
    tether.setErr(new PrintWriter(err, true));
    ParseResult parsed = tether.parseArgs(args);
    CommandLine call = tether.getSubcommands().get("call");
    return new FailureReporter().handleExecutionException(failure, call, parsed);
  }

  @Test
  void aRetriedCallListsEveryAttemptUnderItsMessage() {
    TetherException lost =
        new ConnectionLostException("lost after send", true)
            .withAttempts(
                List.of(
                    new Attempt(
                        "tcp -h 127.0.0.1 -p 7001",
                        Attempt.Outcome.LOST_AFTER_SEND,
                        "connection reset"),
                    new Attempt(
                        "tcp -h 127.0.0.1 -p 7002", Attempt.Outcome.CONNECT_FAILED, "refused")));

    int code = report(lost, "call", "kv:tcp -h 127.0.0.1 -p 7001", "put");

    assertThat(code).isEqualTo(1);
    assertThat(err.toString())
        .startsWith(
            "tether call: ConnectionLostException (mayHaveExecuted=true): lost after send"
                + System.lineSeparator()
                + "attempts:"
                + System.lineSeparator()
                + "  LOST_AFTER_SEND on tcp -h 127.0.0.1 -p 7001: connection reset");
    assertThat(err.toString()).doesNotContain("\tat ");
  }

  @Test
  void aSingleAttemptIsLeftToTheMessageUnlessVerbose() {
    TetherException refused =
        new TetherException("refused")
            .withAttempts(
                List.of(
                    new Attempt(
                        "tcp -h 127.0.0.1 -p 7001", Attempt.Outcome.CONNECT_FAILED, "refused")));

    report(refused, "call", "echo:tcp -h 127.0.0.1 -p 7001", "echo");
    assertThat(err.toString()).doesNotContain("attempts:");

    report(refused, "call", "--verbose", "echo:tcp -h 127.0.0.1 -p 7001", "echo");
    assertThat(err.toString()).contains("attempts:").contains("\tat ");
  }

  @Test
  void inputMistakesGetTheUsageCode() {
    assertThat(report(new IllegalArgumentException("port out of range"), "call", "x", "y"))
        .isEqualTo(2);
    assertThat(report(CliException.badInput("no such file", null), "call", "x", "y")).isEqualTo(2);
    assertThat(report(new IllegalStateException("bug"), "call", "x", "y")).isEqualTo(1);
  }
}
