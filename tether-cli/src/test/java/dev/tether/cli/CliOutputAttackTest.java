package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.TetherServer;
import dev.tether.admin.TetherAdmin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile server's text on the operator's terminal, and a careless operator's token: what {@code
 * tether call} and {@code tether status} print must carry no terminal control sequence a server
 * sent, and no token, whatever path the text takes.
 */
class CliOutputAttackTest {
  /** Clears the screen, retitles the window, and writes over the start of the line. */
  private static final String HOSTILE = "ok\u001b[2J\u001b]0;owned\u0007\rfake prompt$ ";

  private TetherServer server;
  private TetherAdmin admin;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "hostile",
                (op, payload, ctx) -> {
                  if (op.equals("fail")) {
                    throw new IllegalStateException(HOSTILE);
                  }
                  return HOSTILE.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    admin = TetherAdmin.builder().bind("127.0.0.1", 0).accessToken("s3cret-4711").build().start();
  }

  @AfterEach
  void stop() {
    admin.close();
    server.close();
  }

  private static void assertNoControlSequence(String printed) {
    assertThat(printed).doesNotContain("\u001b", "\u0007", "\r");
  }

  @Test
  void remoteErrorTextIsPrintedWithoutItsControlCharacters() {
    CliRun run = CliRun.run("call", server.proxyString("hostile"), "fail", "x");

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err()).contains("owned");
    assertNoControlSequence(run.err());
  }

  @Test
  void remoteErrorTextUnderVerboseIsPrintedWithoutItsControlCharacters() {
    CliRun run = CliRun.run("--verbose", "call", server.proxyString("hostile"), "fail", "x");

    assertThat(run.exitCode()).isNotZero();
    assertNoControlSequence(run.err());
  }

  @Test
  void textReplyIsPrintedWithoutItsControlCharacters() {
    CliRun run = CliRun.run("call", server.proxyString("hostile"), "text", "x");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("owned");
    assertNoControlSequence(run.out());
  }

  @Test
  void tokenFileWithASecondLineIsNeverRepeatedInTheError(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "s3cret-4711\n# rotated 2026-12-01\n");

    CliRun run = CliRun.run("status", admin.url(), "--token-file", file.toString());

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err() + run.out()).doesNotContain("s3cret-4711");
  }

  @Test
  void tokenWithAControlCharacterIsNeverRepeatedInTheError() {
    CliRun run = CliRun.run("status", admin.url(), "--token", "s3cret-4711\u0001");

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err() + run.out()).doesNotContain("s3cret-4711");
  }

  @Test
  void invisibleAndDirectionCharactersBeyondTheListedRangesAreReplaced() {
    // Arabic letter mark (a bidi mark), zero-width no-break space, a line separator, a tag letter.
    assertThat(PrintableText.of("a\u061cb\ufeffc\u2028d\udb40\udc41e"))
        .startsWith("a?b?c?d?")
        .doesNotContain("\u061c", "\ufeff", "\u2028", "\udb40\udc41");
  }

  @Test
  void streamedTextItemsArePrintedWithoutCarriageReturnsOrDirectionOverrides() {
    java.io.StringWriter out = new java.io.StringWriter();
    StreamPrinter printer =
        new StreamPrinter(
            new java.io.PrintWriter(out),
            new java.io.PrintWriter(new java.io.StringWriter()),
            StreamPrinter.Format.TEXT,
            Long.MAX_VALUE);
    printer.onSubscribe(
        new java.util.concurrent.Flow.Subscription() {
          @Override
          public void request(long n) {}

          @Override
          public void cancel() {}
        });

    printer.onNext("real item\rforged item".getBytes(StandardCharsets.UTF_8));
    printer.onNext("report\u202egnp.exe".getBytes(StandardCharsets.UTF_8));
    printer.onComplete();

    assertThat(out.toString()).doesNotContain("\rforged", "\u202e");
  }
}
