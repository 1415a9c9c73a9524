package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Tether;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ServeCommandTest {

  @Test
  void serveAnswersOnThePrintedProxyUntilAskedToStopThenStopsGracefully() throws Exception {
    BackgroundServe serve =
        new BackgroundServe(
            "--endpoints", "tcp -h 127.0.0.1 -p 0", "--name", "server-7", "--grace", "5s");

    await().atMost(Duration.ofSeconds(30)).until(serve::isServing);
    String echoProxy =
        serve
            .out()
            .lines()
            .map(String::trim)
            .filter(l -> l.startsWith("echo:tcp"))
            .findFirst()
            .orElseThrow();
    try (Tether tether = Tether.create()) {
      byte[] reply =
          tether.proxy(echoProxy).invoke("echo", "ping".getBytes(StandardCharsets.UTF_8));
      assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo("ping");
    }
    assertThat(serve.exitCode()).isNotDone();

    serve.stop();

    assertThat(serve.exitCode().get(30, TimeUnit.SECONDS)).isZero();
    assertThat(serve.out())
        .contains("server-7 is serving on tcp -h 127.0.0.1 -p ")
        .contains("kv:tcp -h 127.0.0.1 -p ")
        .contains("server-7: stopped after serving 1 call(s)");
  }

  @Test
  void serveOffersTheTicksStreamAtItsTickIntervalAndPrintsHowToCallIt() throws Exception {
    BackgroundServe serve =
        new BackgroundServe("--endpoints", "tcp -h 127.0.0.1 -p 0", "--tick-interval", "20ms");
    await().atMost(Duration.ofSeconds(30)).until(serve::isServing);
    String ticksProxy =
        serve
            .out()
            .lines()
            .map(String::trim)
            .filter(l -> l.startsWith("ticks:tcp"))
            .findFirst()
            .orElseThrow();

    CliRun run = CliRun.run("call", "--stream", ticksProxy, "tick", "3");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .isEqualTo(String.join(System.lineSeparator(), "1", "2", "3") + System.lineSeparator());
    assertThat(serve.out()).contains("./tether call --stream '" + ticksProxy + "' tick 10");
    serve.stop();
    assertThat(serve.exitCode().get(30, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void aTickIntervalThatIsNotPositiveIsBadInput() {
    CliRun run =
        CliRun.run("serve", "--endpoints", "tcp -h 127.0.0.1 -p 0", "--tick-interval", "0ms");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--tick-interval must be a positive duration");
  }

  @Test
  void badEndpointsExitWithTheUsageCodeAndPointAtTheMistake() {
    CliRun run = CliRun.run("serve", "--endpoints", "tcp -h 127.0.0.1 -q 7000");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("bad --endpoints").contains("position 17").contains("^");
  }
}
