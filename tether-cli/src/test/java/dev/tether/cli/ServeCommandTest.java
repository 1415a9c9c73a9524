package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Tether;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ServeCommandTest {

  @Test
  void serveAnswersOnThePrintedProxyUntilAskedToStopThenStopsGracefully() throws Exception {
    AtomicReference<Runnable> stop = new AtomicReference<>();
    CommandLine.IFactory factory = CliRun.stoppableServe(stop::set);
    StringWriter out = new StringWriter();
    CommandLine commandLine = TetherCommand.newCommandLine(factory);
    commandLine.setOut(new PrintWriter(out, true));
    CompletableFuture<Integer> serving = CompletableFuture.supplyAsync(() -> commandLine.execute(
        "serve", "--endpoints", "tcp -h 127.0.0.1 -p 0", "--name", "server-7", "--grace", "5s"));

    await().atMost(Duration.ofSeconds(30)).until(() -> stop.get() != null);
    String echoProxy = out.toString().lines()
        .map(String::trim)
        .filter(l -> l.startsWith("echo:tcp"))
        .findFirst()
        .orElseThrow();
    try (Tether tether = Tether.create()) {
      byte[] reply = tether.proxy(echoProxy).invoke("echo", "ping".getBytes(StandardCharsets.UTF_8));
      assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo("ping");
    }
    assertThat(serving).isNotDone();

    stop.get().run();

    assertThat(serving.get(30, TimeUnit.SECONDS)).isZero();
    assertThat(out.toString())
        .contains("server-7 is serving on tcp -h 127.0.0.1 -p ")
        .contains("kv:tcp -h 127.0.0.1 -p ")
        .contains("server-7: stopped after serving 1 call(s)");
  }

  @Test
  void badEndpointsExitWithTheUsageCodeAndPointAtTheMistake() {
    CliRun run = CliRun.run("serve", "--endpoints", "tcp -h 127.0.0.1 -q 7000");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("bad --endpoints").contains("position 17").contains("^");
  }
}
