package dev.tether.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code tether demo --admin ... --hold}: the page shows the run and stays up until Enter. */
class DemoStatusPageTest {

  @Test
  void demoWithAdminAndHoldKeepsThePageUpUntilEnterThenEndsWithItsVerdict() throws Exception {
    PipedOutputStream keyboard = new PipedOutputStream();
    PipedInputStream stdin = new PipedInputStream(keyboard);
    CommandLine.IFactory factory =
        new CommandLine.IFactory() {
          @Override
          public <K> K create(Class<K> type) throws Exception {
            K made = CommandLine.defaultFactory().create(type);
            if (made instanceof DemoCommand demo) {
              demo.stdin = stdin;
            }
            return made;
          }
        };
    StringWriter out = new StringWriter();
    CommandLine commandLine = TetherCommand.newCommandLine(factory);
    commandLine.setOut(new PrintWriter(out, true));
    CompletableFuture<Integer> demo =
        CompletableFuture.supplyAsync(
            () ->
                commandLine.execute(
                    "demo",
                    "--seconds",
                    "1",
                    "--callers",
                    "2",
                    "--scenario",
                    "steady",
                    "--admin",
                    "127.0.0.1:0",
                    "--hold"));

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> out.toString().contains("press Enter to end the demo"));
    String url =
        out.toString()
            .lines()
            .filter(l -> l.startsWith("status page: "))
            .findFirst()
            .orElseThrow()
            .substring("status page: ".length());
    HttpResponse<String> status =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url).resolve("status.json"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(status.body()).contains("\"state\":\"ACTIVE\"").contains("\"callsOk\":");
    assertThat(demo).isNotDone();

    keyboard.write("\n".getBytes(UTF_8));
    keyboard.flush();

    assertThat(demo.get(30, TimeUnit.SECONDS)).isZero();
    assertThat(out.toString()).contains("steady");
  }
}
