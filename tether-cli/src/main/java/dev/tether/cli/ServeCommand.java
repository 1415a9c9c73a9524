package dev.tether.cli;

import dev.tether.Endpoint;
import dev.tether.ExecutionMode;
import dev.tether.ProxyParseException;
import dev.tether.admin.TetherAdmin;
import dev.tether.cli.kv.DemoServer;
import dev.tether.cli.kv.GrpcDemo;
import dev.tether.cli.kv.KeyValueStore;
import dev.tether.observe.TetherListener;
import dev.tether.zookeeper.ZooKeeperRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tether serve}: a demo server with services {@code echo}, {@code kv} and {@code ticks},
 * until Ctrl-C.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs a demo server until Ctrl-C, then shuts it down gracefully.",
      "",
      "Services: echo (operation echo returns the payload), kv (typed: put, get, increment,"
          + " whoami; every result names the server) and the stream service ticks (numbered "
          + "items: count"
          + " sends them as fast as the client reads, tick one per --tick-interval; the request "
          + "says how"
          + " many, none for without end). It prints the proxy strings to call them with.",
      "",
      "With --grpc the same port serves gRPC clients too (grpcurl, grpc-java, any language):"
          + " tether.demo.Echo (Echo, Count), grpc.health.v1.Health and reflection.",
      ""
    })
public final class ServeCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(
      names = "--endpoints",
      defaultValue = "tcp -h 127.0.0.1 -p 7000",
      paramLabel = "<endpoints>",
      description =
          "Where to listen, ':'-separated (default: ${DEFAULT-VALUE}); -p 0 picks a free port.")
  private String endpoints;

  @Option(
      names = "--name",
      defaultValue = "server-1",
      description = "The name results report (default: ${DEFAULT-VALUE}).")
  private String name;

  @Option(
      names = "--direct",
      description =
          "Run service code on the event loop (ExecutionMode.DIRECT) instead of a thread pool.")
  private boolean direct;

  @Option(
      names = "--grpc",
      description =
          "Also serve gRPC clients on the same port (the first bytes of a connection choose):"
              + " tether.demo.Echo, health and reflection; prints a grpcurl line and grpc-java "
              + "code.")
  private boolean grpc;

  @Option(
      names = "--grace",
      defaultValue = "10s",
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description =
          "How long shutdown may wait for calls in flight and clients to leave (default: "
              + "${DEFAULT-VALUE}).")
  private Duration grace;

  @Option(
      names = "--tick-interval",
      defaultValue = "1s",
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description =
          "How often the ticks stream's operation tick sends an item (default: ${DEFAULT-VALUE}).")
  private Duration tickInterval;

  @Option(
      names = "--zookeeper",
      paramLabel = "<host:port[,host:port]>",
      description =
          "Register both services in this ZooKeeper (under /tether) while serving; withdrawn when "
              + "the"
              + " shutdown starts.")
  private String zookeeper;

  @Option(
      names = "--admin",
      paramLabel = "<host:port>",
      description =
          "Also serve the live status page there, e.g. 127.0.0.1:0 (a free port); it prints the "
              + "page's URL.")
  private String admin;

  @Option(
      names = "--admin-token",
      paramLabel = "<token>",
      description =
          "Let only requests carrying ?token=<token> see the status page (visible to anyone who"
              + " can list processes: prefer --admin-token-file or --admin-token-env).")
  private String adminToken;

  @Option(
      names = "--admin-token-file",
      paramLabel = "<file>",
      description = "Read the status page's access token from this file.")
  private Path adminTokenFile;

  @Option(
      names = "--admin-token-env",
      paramLabel = "<variable>",
      description = "Read the status page's access token from this environment variable.")
  private String adminTokenVariable;

  private final StopSignal stopSignal;

  /** Stops on JVM shutdown (Ctrl-C). */
  public ServeCommand() {
    this(StopSignal.jvmShutdown());
  }

  /** Stops when {@code stopSignal} says so. */
  public ServeCommand(StopSignal stopSignal) {
    this.stopSignal = stopSignal;
  }

  @Override
  public Integer call() throws InterruptedException {
    // "--grace infinite" waits as long as calls take; a day stands in for forever.
    Duration drain = grace == null ? Duration.ofDays(1) : grace;
    String token =
        AccessToken.resolve(
            "--admin-token", adminToken, adminTokenFile, adminTokenVariable, System::getenv);
    if (token != null && admin == null) {
      spec.commandLine().getErr().println("warning: an admin token without --admin does nothing");
    }
    TetherAdmin.Builder page = admin == null ? null : StatusPageOption.builder(admin, token);
    DemoServer server = start(page == null ? null : page.listener());
    TetherAdmin started = page == null ? null : startAdmin(page, server);
    PrintWriter out = spec.commandLine().getOut();
    ZooKeeperRegistry registry = zookeeper == null ? null : register(server, out);
    printGreeting(out, server);
    if (started != null) {
      out.println("status page: " + started.url() + (token == null ? "" : "?token=<your token>"));
      out.flush();
      if (started.exposedWithoutToken()) {
        spec.commandLine()
            .getErr()
            .println(
                "warning: the status page listens beyond loopback ("
                    + admin
                    + ") without an access token: anyone who reaches the port can read it; give"
                    + " --admin-token-file and put TLS in front of it, or bind 127.0.0.1");
      }
    }
    CountDownLatch stopped = new CountDownLatch(1);
    stopSignal.onStopRequested(
        () -> {
          out.println(
              name
                  + ": shutting down gracefully (up to "
                  + drain.toSeconds()
                  + " s for calls in flight)");
          out.flush();
          server.shutdownGracefully(drain);
          if (started != null) {
            started.close();
          }
          out.println(name + ": stopped after serving " + server.stats().served() + " call(s)");
          out.flush();
          if (registry != null) {
            registry.close();
          }
          stopped.countDown();
        });
    stopped.await();
    return ExitCode.OK;
  }

  private TetherAdmin startAdmin(TetherAdmin.Builder page, DemoServer server) {
    try {
      return page.observe(server.server()).build().start();
    } catch (RuntimeException e) {
      server.close();
      throw CliException.failed(
          "cannot serve the status page on " + admin + ": " + e.getMessage(), e);
    }
  }

  private DemoServer start(TetherListener listener) {
    ExecutionMode mode = direct ? ExecutionMode.DIRECT : ExecutionMode.EXECUTOR;
    if (tickInterval == null || tickInterval.isZero() || tickInterval.isNegative()) {
      throw new ParameterException(
          spec.commandLine(), "--tick-interval must be a positive duration");
    }
    try {
      return DemoServer.start(
          name,
          endpoints,
          mode,
          new KeyValueStore(),
          () -> {},
          listener,
          tickInterval,
          grpc ? GrpcDemo::configure : (b, stats) -> b);
    } catch (ProxyParseException e) {
      throw CliException.badProxyString("--endpoints", endpoints, e);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw CliException.badInput("cannot serve on " + endpoints + ": " + e.getMessage(), e);
    } catch (Exception e) {
      // Netty rethrows bind failures (port in use, unknown host) as they are, checked or not.
      throw CliException.failed("cannot listen on " + endpoints + ": " + e.getMessage(), e);
    }
  }

  private ZooKeeperRegistry register(DemoServer server, PrintWriter out) {
    ZooKeeperRegistry registry = ZooKeeperRegistry.connect(zookeeper);
    try {
      registry.register(server.server());
    } catch (RuntimeException e) {
      registry.close();
      server.close();
      throw CliException.failed(
          "cannot register in ZooKeeper at " + zookeeper + ": " + FailureReporter.describe(e), e);
    }
    out.println(
        name
            + " is registered in ZooKeeper at "
            + zookeeper
            + " as services "
            + DemoServer.ECHO
            + " and "
            + DemoServer.KV
            + "; find it with ./tether call --zookeeper "
            + zookeeper
            + " --json kv whoami");
    return registry;
  }

  private void printGreeting(PrintWriter out, DemoServer server) {
    String where =
        server.endpoints().stream().map(Endpoint::toString).collect(Collectors.joining(", "));
    String echo = server.proxyString(DemoServer.ECHO);
    String kv = server.proxyString(DemoServer.KV);
    String ticks = server.proxyString(DemoServer.TICKS);
    out.println(
        name + " is serving on " + where + (direct ? " (service code on the event loop)" : ""));
    out.println("proxies:");
    out.println("  " + echo);
    out.println("  " + kv);
    out.println("  " + ticks);
    out.println("try:");
    out.println("  ./tether call '" + echo + "' echo hello");
    out.println("  ./tether call --json --idempotent '" + kv + "' put '[\"color\",\"blue\"]'");
    out.println("  ./tether call --json --idempotent '" + kv + "' get '[\"color\"]'");
    out.println("  ./tether call --json '" + kv + "' increment '[\"visits\"]'");
    out.println("  ./tether call --json --idempotent '" + kv + "' whoami");
    out.println("  ./tether call --stream '" + ticks + "' " + DemoServer.TICK + " 10");
    out.println("  ./tether call --stream --limit 1000 '" + ticks + "' " + DemoServer.COUNT);
    if (grpc) {
      // Only a tcp or ssl endpoint reaches a gRPC client (not udp, nor an in-process one).
      server.endpoints().stream()
          .filter(e -> e.isSecure() || e.transport().equals("tcp"))
          .findFirst()
          .ifPresentOrElse(
              e -> printGrpcGreeting(out, e),
              () -> out.println("gRPC: no tcp or ssl endpoint to serve it on"));
    }
    out.println("Ctrl-C stops it gracefully.");
    out.flush();
  }

  /** How a gRPC client reaches the demo: grpcurl (through reflection) and grpc-java. */
  private static void printGrpcGreeting(PrintWriter out, Endpoint endpoint) {
    String target = endpoint.host() + ":" + endpoint.port();
    String plaintext = endpoint.isSecure() ? "" : " -plaintext";
    out.println(
        "gRPC on the same port: "
            + GrpcDemo.SERVICE
            + " (Echo, Count), grpc.health.v1.Health, reflection; try:");
    out.println("  grpcurl" + plaintext + " " + target + " list");
    out.println(
        "  grpcurl" + plaintext + " -d '\"hello\"' " + target + " " + GrpcDemo.SERVICE + "/Echo");
    out.println(
        "  grpcurl" + plaintext + " -d '\"5\"' " + target + " " + GrpcDemo.SERVICE + "/Count");
    if (!endpoint.isSecure()) {
      // Tether's own gRPC client, the request an Int64Value of 5 in protobuf's binary form.
      out.println(
          "  printf '\\x08\\x05' | ./tether call --grpc --stream --hex "
              + target
              + " "
              + GrpcDemo.SERVICE
              + "/Count @-");
    }
    out.println("grpc-java (io.grpc:grpc-netty-shaded and grpc-services):");
    out.println(
        "  ManagedChannel channel = ManagedChannelBuilder.forTarget(\""
            + target
            + "\")"
            + (endpoint.isSecure() ? ".useTransportSecurity()" : ".usePlaintext()")
            + ".build();");
    out.println(
        "  HealthCheckResponse health = HealthGrpc.newBlockingStub(channel)"
            + ".check(HealthCheckRequest.getDefaultInstance());");
  }
}
