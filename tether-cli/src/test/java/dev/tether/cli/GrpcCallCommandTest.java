package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.TetherServer;
import dev.tether.grpc.TetherGrpc;
import io.grpc.Deadline;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code tether call --grpc} and {@code tether bench --grpc} against grpc-java's own server (its
 * Netty shaded) on loopback, and against a Tether server that serves gRPC.
 */
@Timeout(120)
class GrpcCallCommandTest {
  /** A protobuf binary, as {@code protoc --encode} writes {@code name: "tether"}. */
  private static final byte[] HELLO_REQUEST = {0x0a, 0x06, 't', 'e', 't', 'h', 'e', 'r'};

  private final EchoGrpcService service = new EchoGrpcService();
  private Server server;
  private String target;

  @BeforeEach
  void startGrpcJavaServer() throws IOException {
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service.definition())
            .build()
            .start();
    target = "127.0.0.1:" + server.getPort();
  }

  @AfterEach
  void stopGrpcJavaServer() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void callsAGrpcServerWithRawBytesFromAFile(@TempDir Path dir) throws IOException {
    Path request = Files.write(dir.resolve("request.bin"), HELLO_REQUEST);
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();

    CliRun run =
        CliRun.run(
            rawTo(stdout), "call", "--grpc", "--raw", target, "test.Echo/Echo", "@" + request);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(stdout.toByteArray()).isEqualTo(HELLO_REQUEST);
    assertThat(run.err()).isEmpty();
    assertThat(service.calls.get()).isEqualTo(1);
  }

  @Test
  void hexPrintsTheResponseMessageAndHeadersDeadlineAndTrailersTravel(@TempDir Path dir)
      throws IOException {
    Path request = Files.write(dir.resolve("request.bin"), HELLO_REQUEST);

    CliRun run =
        CliRun.run(
            "call",
            "--grpc",
            "--hex",
            "-H",
            "x-tenant: blue",
            "--timeout",
            "5s",
            "--trailers",
            target,
            "/test.Echo/Echo",
            "@" + request);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().trim()).isEqualTo("0a06746574686572");
    assertThat(service.lastTenant.get()).isEqualTo("blue");
    // The command's timeout reached the server as the call's deadline (grpc-timeout).
    assertThat(service.lastDeadline.get()).isNotNull();
    assertThat(service.lastDeadline.get().timeRemaining(TimeUnit.MILLISECONDS))
        .isBetween(1L, 5_000L);
    assertThat(run.err()).contains("trailers:").contains("  served-by: test.Echo");
  }

  @Test
  void aNonOkStatusExitsNonZeroAndPrintsTheStatus() {
    CliRun run = CliRun.run("call", "--grpc", "--trailers", target, "test.Echo/Fail", "x");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .contains("served-by: test.Echo")
        .contains("tether call: gRPC status NOT_FOUND: no such key: color")
        .doesNotContain("\tat ");
  }

  @Test
  void anUnknownMethodEndsUnimplemented() {
    CliRun run = CliRun.run("call", "--grpc", target, "test.Echo/Nope", "x");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("tether call: gRPC status UNIMPLEMENTED");
  }

  @Test
  void aServerStreamIsPrintedOneMessageALine() {
    CliRun run = CliRun.run("call", "--grpc", "--stream", target, "test.Echo/Count", "3");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines()).containsExactly("1", "2", "3");
  }

  @Test
  void anUnreachableServerEndsUnavailableWithTheRuntimesReasonOnce() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);

    CliRun run = CliRun.run("call", "--grpc", "--timeout", "5s", target, "test.Echo/Echo", "x");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("tether call: gRPC status UNAVAILABLE: cannot connect")
        .endsWith("(ConnectFailedException)" + System.lineSeparator());
  }

  @Test
  void aStreamIsCancelledAfterTheLimit() {
    CliRun run =
        CliRun.run("call", "--grpc", "--stream", "--limit", "2", target, "test.Echo/Count", "1000");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines()).containsExactly("1", "2");
  }

  @Test
  void aStreamsTimeoutIsItsDeadlineUnlessInfinite() {
    CliRun bounded = CliRun.run("call", "--grpc", "--stream", target, "test.Echo/Count", "1");
    Deadline boundedDeadline = service.lastDeadline.get();
    CliRun endless =
        CliRun.run(
            "call", "--grpc", "--stream", "--timeout", "infinite", target, "test.Echo/Count", "1");

    assertThat(bounded.exitCode()).as(bounded.err()).isZero();
    assertThat(endless.exitCode()).as(endless.err()).isZero();
    assertThat(boundedDeadline).isNotNull();
    assertThat(service.lastDeadline.get()).isNull();
  }

  @Test
  void aMethodNameWithoutItsServiceIsBadInputAndNothingIsCalled() {
    CliRun run = CliRun.run("call", "--grpc", target, "Echo", "x");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("package.Service/Method");
    assertThat(service.calls.get()).isZero();
  }

  @Test
  void jsonAndGrpcTogetherAreRejected() {
    CliRun run = CliRun.run("call", "--grpc", "--json", target, "test.Echo/Echo", "1");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--json is Tether's codec");
  }

  @Test
  void benchAgainstAGrpcServerReportsCallsPerSecond(@TempDir Path dir) throws IOException {
    Path request = Files.write(dir.resolve("request.bin"), HELLO_REQUEST);

    CliRun run =
        CliRun.run(
            "bench",
            "--grpc",
            target,
            "--operation",
            "test.Echo/Echo",
            "--data",
            "@" + request,
            "-H",
            "x-tenant:bench",
            "--concurrency",
            "4",
            // A bound only: the 500 calls end the run, in well under a second once warm, but a
            // cold JVM on a loaded machine made only 64 in 5 s.
            "--duration",
            "60s",
            "--calls",
            "500");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .containsPattern("500 calls in [0-9.]+ s: [0-9,]+ calls/s, 0 failed")
        // A loaded machine's median call takes milliseconds (11 ms at load 30).
        .containsPattern("latency p50 \\d+ (µs|ms)  p99 \\d+ (µs|ms)");
    assertThat(service.calls.get()).isEqualTo(500);
    assertThat(service.lastTenant.get()).isEqualTo("bench");
  }

  @Test
  void benchOfAFailingMethodReportsItsStatus() {
    CliRun run =
        CliRun.run(
            "bench",
            "--grpc",
            target,
            "--operation",
            "test.Echo/Fail",
            "--concurrency",
            "1",
            "--duration",
            "5s",
            "--calls",
            "3");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains("3 failed")
        .contains("first failure: gRPC status NOT_FOUND: no such key: color");
  }

  @Test
  void callsATetherServerServingGrpcByProxyStringAndItsOwnServicesByIdentity() {
    EchoGrpcService onTether = new EchoGrpcService();
    TetherServer tether =
        TetherGrpc.server()
            .service(onTether.definition())
            .configure(
                TetherServer.builder()
                    .endpoints("tcp -h 127.0.0.1 -p 0")
                    .service("echo", (operation, payload, ctx) -> payload)
                    .service(
                        "tenant",
                        (operation, payload, ctx) ->
                            ctx.metadata()
                                .getOrDefault("x-tenant", "none")
                                .getBytes(StandardCharsets.UTF_8)))
            .build()
            .start();
    try {
      int port = tether.endpoints().get(0).port();

      CliRun grpcService =
          CliRun.run(
              "call",
              "--grpc",
              "-H",
              "x-tenant:green",
              "echoes:tcp -h 127.0.0.1 -p " + port,
              "test.Echo/Echo",
              "hello");
      CliRun tetherService =
          CliRun.run("call", "--grpc", "127.0.0.1:" + port, "echo/echo", "from grpc");
      CliRun tetherCall =
          CliRun.run("call", "-H", "X-Tenant: red", "tenant:tcp -h 127.0.0.1 -p " + port, "whoami");

      assertThat(grpcService.exitCode()).as(grpcService.err()).isZero();
      assertThat(grpcService.out().trim()).isEqualTo("hello");
      assertThat(onTether.lastTenant.get()).isEqualTo("green");
      assertThat(tetherService.exitCode()).as(tetherService.err()).isZero();
      assertThat(tetherService.out().trim()).isEqualTo("from grpc");
      // Without --grpc, -H is the Tether call's metadata.
      assertThat(tetherCall.out().trim()).as(tetherCall.err()).isEqualTo("red");
    } finally {
      tether.close();
    }
  }

  /** The command line whose {@code call --raw} writes into {@code stdout}. */
  private static CommandLine.IFactory rawTo(ByteArrayOutputStream stdout) {
    return new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> type) throws Exception {
        K made = CommandLine.defaultFactory().create(type);
        if (made instanceof CallCommand call) {
          call.stdout = stdout;
        }
        return made;
      }
    };
  }
}
