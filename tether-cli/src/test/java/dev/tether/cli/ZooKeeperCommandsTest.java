package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.zookeeper.LoopbackZooKeeper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** serve, call and demo with --zookeeper, on a real ZooKeeper on 127.0.0.1. */
class ZooKeeperCommandsTest {
  private final TestingServer zookeeper = LoopbackZooKeeper.server();

  @AfterEach
  void stop() throws IOException {
    zookeeper.close();
  }

  @Test
  void callFindsTheServerThatServeRegisteredAndNoneOnceItStopped() throws Exception {
    AtomicReference<Runnable> stop = new AtomicReference<>();
    CommandLine.IFactory factory = CliRun.stoppableServe(stop::set);
    StringWriter out = new StringWriter();
    CommandLine serve = TetherCommand.newCommandLine(factory);
    serve.setOut(new PrintWriter(out, true));
    CompletableFuture<Integer> serving =
        CompletableFuture.supplyAsync(
            () ->
                serve.execute(
                    "serve",
                    "--endpoints",
                    "tcp -h 127.0.0.1 -p 0",
                    "--name",
                    "server-z",
                    "--zookeeper",
                    zookeeper.getConnectString()));
    await().atMost(Duration.ofSeconds(30)).until(() -> stop.get() != null);
    assertThat(out.toString())
        .contains("server-z is registered in ZooKeeper at " + zookeeper.getConnectString());

    CliRun put =
        CliRun.run(
            "call",
            "--zookeeper",
            zookeeper.getConnectString(),
            "--json",
            "--idempotent",
            "kv",
            "put",
            "[\"k\",\"v\"]");
    CliRun get =
        CliRun.run("call", "--zookeeper", zookeeper.getConnectString(), "--json", "kv", "get", "k");
    assertThat(put.exitCode()).as(put.err()).isZero();
    assertThat(get.exitCode()).as(get.err()).isZero();
    assertThat(get.out().trim())
        .isEqualTo("{\"key\":\"k\",\"value\":\"v\",\"server\":\"server-z\"}");

    stop.get().run();
    assertThat(serving.get(30, TimeUnit.SECONDS)).isZero();
    CliRun after =
        CliRun.run("call", "--zookeeper", zookeeper.getConnectString(), "echo", "echo", "hi");
    assertThat(after.exitCode()).isEqualTo(1);
    assertThat(after.err())
        .contains(
            "no server of service 'echo' is registered in ZooKeeper at "
                + zookeeper.getConnectString());
  }

  @Test
  void rollingRestartDemoOnAnEmbeddedZooKeeperFailsNoCall() {
    CliRun run =
        CliRun.run(
            "demo", "--zookeeper", "embedded", "--scenario", "rolling-restart", "--seconds", "3");

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("3 servers on loopback registered in ZooKeeper (embedded)")
        .contains("found in embedded ZooKeeper at 127.0.0.1:");
    DemoSummary s = DemoSummary.parse(run.out());
    for (String server : List.of("server-1", "server-2", "server-3")) {
      assertThat(s.serverStates().get(server)).startsWith("restarted at ");
    }
    assertThat(s.failed()).as("failed calls").isZero();
    assertThat(s.verdict()).isEqualTo("PASS: 2 of 2 expectations met");
  }

  @Test
  void frozenPeerRefusesZooKeeper() {
    CliRun run = CliRun.run("demo", "--scenario", "frozen-peer", "--zookeeper", "embedded");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--zookeeper is for the cluster scenarios");
  }
}
