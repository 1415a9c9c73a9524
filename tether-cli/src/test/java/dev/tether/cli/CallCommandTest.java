package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.ExecutionMode;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.KeyValueStore;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CallCommandTest {
  private DemoServer server;
  private String echo;
  private String kv;

  @BeforeEach
  void startServer() {
    server =
        DemoServer.start(
            "test-server", "tcp -h 127.0.0.1 -p 0", ExecutionMode.EXECUTOR, new KeyValueStore());
    echo = server.proxyString(DemoServer.ECHO);
    kv = server.proxyString(DemoServer.KV);
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Test
  void callPrintsTheEchoOfAnInProcessServer() {
    CliRun run = CliRun.run("call", echo, "echo", "hello, tether");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("hello, tether" + System.lineSeparator());
    assertThat(run.err()).isEmpty();
  }

  @Test
  void hexPrintsTheReplyBytes() {
    CliRun run = CliRun.run("call", "--hex", echo, "echo", "hi");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().trim()).isEqualTo("6869");
  }

  @Test
  void aPayloadFileIsSentAsItsBytes(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("payload.bin");
    Files.write(file, new byte[] {0, 1, (byte) 0xfe, (byte) 0xff});

    CliRun run = CliRun.run("call", "--hex", echo, "echo", "@" + file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().trim()).isEqualTo("0001feff");
  }

  @Test
  void aDoubledAtSignSendsTextStartingWithAnAtSign() {
    CliRun run = CliRun.run("call", echo, "echo", "@@home");

    assertThat(run.out().trim()).isEqualTo("@home");
  }

  @Test
  void aPayloadOfAtDashIsReadFromStandardInput() {
    CommandLine.IFactory withStdin =
        new CommandLine.IFactory() {
          @Override
          public <K> K create(Class<K> type) throws Exception {
            K made = CommandLine.defaultFactory().create(type);
            if (made instanceof CallCommand call) {
              call.stdin = new ByteArrayInputStream("piped in".getBytes(StandardCharsets.UTF_8));
            }
            return made;
          }
        };

    CliRun run = CliRun.run(withStdin, "call", echo, "echo", "@-");

    assertThat(run.out().trim()).isEqualTo("piped in");
  }

  @Test
  void jsonCallsTheTypedKeyValueServiceAndPrintsItsResults() {
    CliRun put = CliRun.run("call", "--json", "--idempotent", kv, "put", "[\"color\",\"blue\"]");
    CliRun get = CliRun.run("call", "--json", "--idempotent", kv, "get", "\"color\"");
    CliRun increment = CliRun.run("call", "--json", kv, "increment", "[\"visits\"]");
    CliRun whoami = CliRun.run("call", "--json", kv, "whoami");

    assertThat(put.out().trim())
        .isEqualTo("{\"key\":\"color\",\"value\":\"blue\",\"server\":\"test-server\"}");
    assertThat(get.out().trim())
        .isEqualTo("{\"key\":\"color\",\"value\":\"blue\",\"server\":\"test-server\"}");
    assertThat(increment.out().trim())
        .isEqualTo("{\"counter\":\"visits\",\"value\":1,\"server\":\"test-server\"}");
    assertThat(whoami.out().trim()).isEqualTo("\"test-server\"");
  }

  @Test
  void onewayPrintsNothingAndTheServerStillRunsTheCall() {
    long before = server.stats().served();

    CliRun run = CliRun.run("call", "--oneway", echo, "echo", "fire and forget");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEmpty();
    await().atMost(Duration.ofSeconds(10)).until(() -> server.stats().served() == before + 1);
  }

  @Test
  void aBatchOnewayProxyStringIsFlushedBeforeTheCommandEnds() {
    long before = server.stats().served();
    String batchOneway = echo.replaceFirst("^echo:", "echo -O:");

    CliRun run = CliRun.run("call", batchOneway, "echo", "queued");

    assertThat(run.exitCode()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> server.stats().served() == before + 1);
  }

  @Test
  void aBadProxyStringExitsWithTheUsageCodeAndNamesThePosition() {
    CliRun run = CliRun.run("call", "echo:tcp -x 127.0.0.1", "echo", "hi");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("bad proxy string")
        .contains("at position 9")
        .contains("  echo:tcp -x 127.0.0.1" + System.lineSeparator() + "           ^");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void anUnreachableServerExitsNonZeroWithTheMessageAndNoStackTrace() {
    String port = String.valueOf(server.endpoints().get(0).port());
    server.close();

    CliRun run =
        CliRun.run("call", "--timeout", "5s", "echo:tcp -h 127.0.0.1 -p " + port, "echo", "hi");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("tether call: ConnectFailedException: ")
        .contains("127.0.0.1 -p " + port);
    assertThat(run.err()).doesNotContain("\tat ");
  }

  @Test
  void verboseAddsTheStackTrace() {
    CliRun run = CliRun.run("call", "--verbose", echo, "no-such-operation");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("RemoteException").contains("\tat ");
  }

  @Test
  void aRemoteErrorExitsNonZeroWithTheRemoteTypeAndMessage() {
    CliRun run = CliRun.run("call", echo, "no-such-operation");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err().trim())
        .isEqualTo(
            "tether call: RemoteException: java.lang.IllegalArgumentException: "
                + "echo has one operation, \"echo\"; got \"no-such-operation\"");
  }

  @Test
  void anUnknownServiceIsReportedAsSuch() {
    CliRun run = CliRun.run("call", server.proxyString("nope"), "echo");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).startsWith("tether call: ServiceNotFoundException: ");
  }

  @Test
  void aMissingPayloadFileIsBadInput() {
    CliRun run = CliRun.run("call", echo, "echo", "@/no/such/file");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("cannot read payload file /no/such/file");
  }

  @Test
  void hexAndJsonTogetherAreRejected() {
    CliRun run = CliRun.run("call", "--hex", "--json", echo, "echo");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--hex and --json");
  }

  @Test
  void anUnreadableDurationIsRejected() {
    CliRun run = CliRun.run("call", "--timeout", "soon", echo, "echo");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("'soon' is not a duration");
  }
}
