package dev.tether.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.LoadBalancing;
import dev.tether.Tether;
import dev.tether.admin.TetherAdmin;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValueStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tether status}, {@code tether bench} and {@code tether serve --admin} against real
 * loopback servers.
 */
class StatusAndBenchCommandTest {
  private DemoServer server;
  private Tether tether;
  private TetherAdmin admin;

  @BeforeEach
  void start() {
    TetherAdmin.Builder page = TetherAdmin.builder().bind("127.0.0.1", 0).accessToken("s3cret");
    server =
        DemoServer.start(
            "test-server",
            "tcp -h 127.0.0.1 -p 0",
            ExecutionMode.EXECUTOR,
            new KeyValueStore(),
            () -> {},
            page.listener());
    tether = Tether.builder().listener(page.listener()).build();
    tether
        .proxy(server.proxyString(DemoServer.ECHO))
        .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
        .invoke("echo", "hi".getBytes(UTF_8));
    admin = page.observe(tether).observe(server.server()).build().start();
  }

  @AfterEach
  void stop() {
    admin.close();
    tether.close();
    server.close();
  }

  @Test
  void statusPrintsNodesConnectionsAndServersAsTables() {
    CliRun run = CliRun.run("status", admin.url(), "--token", "s3cret");

    String endpoint = server.endpoints().get(0).toString();
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("client 1: retries 0")
        .containsPattern("NODE +HEALTH +IN FLIGHT +LATENCY")
        .containsPattern(endpoint.replace(".", "\\.") + " +ALIVE +0")
        .containsPattern(endpoint.replace(".", "\\.") + " +ACTIVE +\\d+ s +0 +1 +0")
        .containsPattern(
            "servers:\\n +SERVER +STATE +CONNECTIONS +IN FLIGHT +SERVED\\n +"
                + endpoint.replace(".", "\\.")
                + " +RUNNING +1 +0 +1");
  }

  @Test
  void statusWithoutTheTokenFailsAndSaysWhy() {
    CliRun run = CliRun.run("status", admin.url());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("answered 401").contains("token");
  }

  @Test
  void statusWatchRedrawsTheTableEachInterval() {
    CliRun run =
        CliRun.run(
            "status",
            admin.url(),
            "--token",
            "s3cret",
            "--watch",
            "--interval",
            "100ms",
            "--refreshes",
            "3");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().split("\033\\[H\033\\[2J", -1)).hasSize(4);
    assertThat(run.out()).contains("(every 100 ms, Ctrl-C stops)");
  }

  @Test
  void benchEndsWithCallsPerSecondAndPercentiles() {
    CliRun run =
        CliRun.run(
            "bench",
            server.proxyString(DemoServer.ECHO),
            "--payload",
            "32",
            "--concurrency",
            "4",
            "--duration",
            "5s",
            "--calls",
            "2000");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(" calls/s  p99 ")
        .containsPattern("2,000 calls in [0-9.]+ s: [0-9,]+ calls/s, 0 failed")
        .containsPattern("latency p50 \\d+ µs  p99 \\d+ (µs|ms)  p99\\.9 \\d+ (µs|ms)");
    assertThat(server.stats().served()).isGreaterThanOrEqualTo(2000);
  }

  @Test
  void benchAgainstNothingReportsTheFailure() {
    CliRun run =
        CliRun.run(
            "bench",
            "echo:tcp -h 127.0.0.1 -p 1 -t 500",
            "--concurrency",
            "1",
            "--duration",
            "5s",
            "--calls",
            "3");

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.out()).contains("3 failed").contains("first failure: ");
  }

  @Test
  void statusReadsTheTokenFromAFile(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "s3cret\n");

    CliRun run = CliRun.run("status", admin.url(), "--token-file", file.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("RUNNING").doesNotContain("s3cret");
  }

  @Test
  void aRefusedStatusNeverRepeatsTheTokenGivenOrPastedInTheAddress() {
    CliRun literal = CliRun.run("status", admin.url(), "--token", "wrong-secret-4711");
    CliRun pasted = CliRun.run("status", admin.url() + "?token=pasted-secret-4711");

    assertThat(literal.exitCode()).isNotZero();
    assertThat(literal.err()).contains("answered 401").doesNotContain("wrong-secret-4711");
    assertThat(literal.out()).doesNotContain("wrong-secret-4711");
    assertThat(pasted.err()).contains("answered 401").doesNotContain("pasted-secret-4711");
  }

  @Test
  void aTokenGivenTwoWaysIsBadInputThatNamesTheOptionsNotTheToken(@TempDir Path dir)
      throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "from-file-4711");

    CliRun run =
        CliRun.run(
            "status", admin.url(), "--token", "literal-4711", "--token-file", file.toString());

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err()).contains("--token-file").doesNotContain("4711");
  }

  @Test
  void serveWithAnAdminTokenButNoAdminWarnsThatItDoesNothing() throws Exception {
    BackgroundServe serve =
        new BackgroundServe(
            "--endpoints",
            "tcp -h 127.0.0.1 -p 0",
            "--admin-token",
            "unused-4711",
            "--grace",
            "1s");
    await().atMost(Duration.ofSeconds(30)).until(serve::isServing);

    assertThat(serve.err()).contains("warning: an admin token without --admin does nothing");
    assertThat(serve.err() + serve.out()).doesNotContain("unused-4711");
    serve.stop();
    assertThat(serve.exitCode().get(30, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void serveWithAdminPrintsThePageUrlAndServesIt() throws Exception {
    BackgroundServe serve =
        new BackgroundServe(
            "--endpoints", "tcp -h 127.0.0.1 -p 0", "--admin", "127.0.0.1:0", "--grace", "1s");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> serve.isServing() && serve.out().contains("status page: "));

    String url =
        serve
            .out()
            .lines()
            .filter(l -> l.startsWith("status page: "))
            .findFirst()
            .orElseThrow()
            .substring("status page: ".length());
    assertThat(url).matches("http://127\\.0\\.0\\.1:\\d+/");
    HttpResponse<String> status =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url).resolve("status.json"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(status.body()).contains("\"state\":\"RUNNING\"");

    serve.stop();
    assertThat(serve.exitCode().get(30, TimeUnit.SECONDS)).isZero();
  }
}
