package dev.tether.cli;

import dev.tether.Idempotency;
import dev.tether.InvocationMode;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.ProxyParseException;
import dev.tether.Tether;
import dev.tether.grpc.TetherGrpc;
import dev.tether.observe.TetherEvent;
import dev.tether.zookeeper.ZooKeeperDiscovery;
import dev.tether.zookeeper.ZooKeeperRegistry;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tether call}: one untyped call, its reply printed on standard output; with {@code
 * --stream}, a server stream whose items are printed as they arrive; with {@code --grpc}, the same
 * against a gRPC server, the request and response messages as bytes.
 */
@Command(
    name = "call",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Calls one operation of a remote service and prints the reply; with --stream, opens a "
          + "stream and prints"
          + " each item as it arrives.",
      "",
      "Examples:",
      "  tether call 'echo:tcp -p 7000' echo hello",
      "  tether call --hex 'echo:tcp -p 7000' echo @picture.png",
      "  tether call --json --idempotent 'kv:tcp -p 7000' put '[\"color\",\"blue\"]'",
      "  tether call --json 'kv:tcp -p 7000' increment '\"visits\"'",
      "  tether call --zookeeper 127.0.0.1:2181 --json kv get color",
      "  tether call --stream 'ticks:tcp -p 7000' tick 10",
      "  tether call --stream --limit 5 'ticks:tcp -p 7000' count",
      "",
      "A gRPC server (--grpc): <proxy> may be host:port, <operation> is the method's",
      "full name, the payload is the request message's bytes, sent as they are: a",
      "protobuf binary that protoc --encode wrote, or any bytes.",
      "  protoc --encode=hello.HelloRequest hello.proto <<< 'name: \"t\"' > req.bin",
      "  tether call --grpc --raw 127.0.0.1:50051 hello.Greeter/SayHello @req.bin \\",
      "    | protoc --decode=hello.HelloReply hello.proto",
      "  tether call --grpc --hex -H 'authorization: Bearer t0ken' --trailers \\",
      "    'greeter:tcp -h a -p 50051:tcp -h b -p 50051' hello.Greeter/SayHello \\",
      "    @req.bin",
      "  printf '\\x08\\x05' | tether call --grpc --stream --hex \\",
      "    127.0.0.1:7000 tether.demo.Echo/Count @-",
      "A status other than OK is printed on standard error, and the exit code is 1.",
      ""
    })
public final class CallCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "<proxy>",
      description =
          "The service, in proxy grammar: identity:endpoint[:endpoint...]; with --zookeeper, the"
              + " service's name alone; with --grpc, also host:port.")
  private String proxyString;

  @Parameters(
      index = "1",
      paramLabel = "<operation>",
      description =
          "The operation to call; with --grpc, the method's full name package.Service/Method.")
  private String operation;

  @Parameters(
      index = "2",
      arity = "0..1",
      paramLabel = "<payload>",
      description =
          "UTF-8 text (none: an empty payload); @file sends the file's bytes, @- reads standard"
              + " input, @@text sends '@text'.")
  private String payload;

  @Option(
      names = "--grpc",
      description =
          "The server speaks gRPC: call the method <operation> names with the payload as its "
              + "request"
              + " message's bytes, sent as they are (a protobuf binary from protoc --encode, or "
              + "any bytes),"
              + " through Tether's connections; the response message's bytes are printed as a "
              + "reply is.")
  private boolean grpc;

  @Option(
      names = "-H",
      paramLabel = "key:value",
      description =
          "A request header, repeatable: the call's metadata (gRPC metadata with --grpc, where a "
              + "key"
              + " ending in -bin takes its value in base64).")
  private List<String> headers = new ArrayList<>();

  @Option(
      names = "--idempotent",
      description = "Declare the call idempotent: Tether may retry it even after it was sent.")
  private boolean idempotent;

  @Option(names = "--oneway", description = "Send without waiting for a reply; prints nothing.")
  private boolean oneway;

  @Option(
      names = "--stream",
      description =
          "Open a server stream of the operation instead of calling it, and print each item on "
              + "its own"
              + " line as it arrives (text when printable, else hex), until the stream ends, "
              + "--limit items came or"
              + " Ctrl-C. A lost connection is resumed unseen; a stream that cannot be resumed "
              + "ends with"
              + " StreamLostException and how many items were delivered.")
  private boolean stream;

  @Option(
      names = "--limit",
      paramLabel = "<n>",
      description = "With --stream: cancel the stream after n items.")
  private Long limit;

  @Option(
      names = "--timeout",
      defaultValue = "10s",
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description =
          "Invocation timeout, connecting included: 500ms, 2s, 1min or infinite (default: "
              + "${DEFAULT-VALUE});"
              + " for a stream, its opening only. With --grpc, the call's deadline, which the "
              + "server"
              + " hears as grpc-timeout, a stream's too: give a stream without end --timeout "
              + "infinite.")
  private Duration timeout;

  @Option(names = "--hex", description = "Print the reply as hex instead of text.")
  private boolean hex;

  @Option(
      names = "--raw",
      description =
          "Write the reply's bytes to standard output as they are, for a file or a pipe (e.g. into"
              + " protoc --decode).")
  private boolean raw;

  @Option(
      names = "--trailers",
      description =
          "With --grpc: print the trailers the server ended the call with on standard error.")
  private boolean trailers;

  @Option(
      names = "--json",
      description =
          "Talk to a typed service: the payload is JSON (an array of arguments, or the only"
              + " argument), sent in Tether's default codec; the reply is printed as JSON.")
  private boolean json;

  @Option(
      names = "-D",
      paramLabel = "tether.key=value",
      description =
          "A Tether setting, e.g. -Dtether.trace.retry=2 or -Dtether.retry.intervals='0 100'.")
  private Map<String, String> properties = new LinkedHashMap<>();

  @Option(
      names = "--zookeeper",
      paramLabel = "<host:port[,host:port]>",
      description =
          "Find the service's servers in this ZooKeeper (under /tether) and balance over them.")
  private String zookeeper;

  /** Where {@code @-} reads from; tests replace it. */
  InputStream stdin = System.in;

  /** Where {@code --raw} writes; tests replace it. */
  OutputStream stdout = System.out;

  @Override
  public Integer call() {
    checkOptions();
    List<Header> headerList = headers.stream().map(Header::parse).toList();
    MethodDescriptor<byte[], byte[]> method =
        grpc
            ? GrpcTarget.method(
                operation, stream ? MethodType.SERVER_STREAMING : MethodType.UNARY, idempotent)
            : null;
    byte[] body = Payloads.read(payload, stdin);
    if (json) {
      body = Payloads.jsonArguments(body);
    }
    try (Tether tether = newTether();
        ZooKeeperRegistry registry =
            zookeeper == null ? null : ZooKeeperRegistry.connect(zookeeper)) {
      Proxy proxy =
          (registry == null ? proxy(tether) : discovered(tether, registry))
              .withInvocationTimeout(timeout);
      if (grpc) {
        return callGrpc(proxy, method, headerList, body);
      }
      for (Header h : headerList) {
        proxy = proxy.withMetadata(h.key(), h.value());
      }
      if (stream) {
        return printStream(proxy.stream(operation, body));
      }
      proxy = oneway ? proxy.withMode(InvocationMode.ONEWAY) : proxy;
      byte[] reply =
          proxy.invoke(
              operation, body, idempotent ? Idempotency.IDEMPOTENT : Idempotency.NOT_IDEMPOTENT);
      if (proxy.mode().isBatch()) {
        // A batch proxy ("-O", "-D") only queues the request; the command ends here, so send it
        // now.
        proxy.flushBatch();
      }
      if (proxy.mode().expectsResponse()) {
        printReply(reply);
      }
    }
    return ExitCode.OK;
  }

  private void checkOptions() {
    if ((hex ? 1 : 0) + (json ? 1 : 0) + (raw ? 1 : 0) > 1) {
      throw new ParameterException(
          spec.commandLine(),
          (raw ? "--raw, --hex and --json each say" : "--hex and --json both say")
              + " how to print the reply; choose one");
    }
    if (raw && stream) {
      throw new ParameterException(
          spec.commandLine(),
          "--raw writes one reply's bytes; a stream's items are printed one a line (as text, or"
              + " --hex)");
    }
    if (grpc && (json || oneway)) {
      throw new ParameterException(
          spec.commandLine(),
          json
              ? "--json is Tether's codec; a gRPC call sends and prints its messages' bytes (--hex,"
                  + " --raw)"
              : "--oneway: gRPC has no oneway calls");
    }
    if (trailers && !grpc) {
      throw new ParameterException(spec.commandLine(), "--trailers are gRPC's; they need --grpc");
    }
    if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
      throw new ParameterException(spec.commandLine(), "--timeout must be positive (or infinite)");
    }
    if (limit != null && !stream) {
      throw new ParameterException(
          spec.commandLine(), "--limit counts the items of a stream; it needs --stream");
    }
    if (limit != null && limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, not " + limit);
    }
    if (stream && (oneway || idempotent)) {
      throw new ParameterException(
          spec.commandLine(),
          (oneway ? "--oneway" : "--idempotent")
              + " is for calls; a stream is opened once and resumed, never retried");
    }
  }

  /**
   * The call through a gRPC channel whose calls {@code proxy} places; the trailers printed when
   * asked, whether the call succeeded or not.
   */
  private int callGrpc(
      Proxy proxy, MethodDescriptor<byte[], byte[]> method, List<Header> headerList, byte[] body) {
    ManagedChannel channel = TetherGrpc.channel(proxy);
    GrpcExchange exchange =
        new GrpcExchange(channel, method, GrpcTarget.metadata(headerList), body, timeout);
    try {
      if (stream) {
        return printStream(exchange);
      }
      printReply(await(exchange.reply(), () -> {}, "call"));
      return ExitCode.OK;
    } finally {
      if (trailers) {
        GrpcTarget.printTrailers(spec.commandLine().getErr(), exchange.trailers());
      }
      // Cancels the call if the command ends before it did (interrupted).
      channel.shutdownNow();
    }
  }

  /**
   * Opens the stream and prints its items until it ends, the limit is reached or the command is
   * interrupted; a stream that failed (lost, a remote error) ends the command with its exception.
   */
  private int printStream(Flow.Publisher<byte[]> items) {
    StreamPrinter.Format format =
        hex
            ? StreamPrinter.Format.HEX
            : json ? StreamPrinter.Format.JSON : StreamPrinter.Format.TEXT;
    StreamPrinter printer =
        new StreamPrinter(
            spec.commandLine().getOut(),
            spec.commandLine().getErr(),
            format,
            limit == null ? Long.MAX_VALUE : limit);
    items.subscribe(printer);
    await(printer.done(), printer::cancel, "stream");
    return ExitCode.OK;
  }

  /**
   * What {@code done} completes with; its failure as the command's. Interrupted, it cancels the
   * call (or stream) {@code what} names and says so.
   */
  private static <T> T await(CompletableFuture<T> done, Runnable cancel, String what) {
    try {
      return done.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException failure
          ? failure
          : CliException.failed(e.getCause().toString(), e);
    } catch (InterruptedException e) {
      cancel.run();
      Thread.currentThread().interrupt();
      throw CliException.failed("interrupted; the " + what + " was cancelled", e);
    }
  }

  /**
   * Tells standard error when a stream went on over a new connection: the items alone would not
   * show it.
   */
  private void onEvent(TetherEvent event) {
    if (event.kind() == TetherEvent.Kind.STREAM_RESUMED) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "(the stream's connection was lost; resumed over a new one, nothing lost or repeated: "
              + event.detail()
              + ")");
      err.flush();
    }
  }

  private Tether newTether() {
    Properties settings = new Properties();
    settings.putAll(properties);
    try {
      Tether.Builder builder = Tether.builder().properties(settings);
      return (stream ? builder.listener(this::onEvent) : builder).build();
    } catch (RuntimeException e) {
      // Settings are read when the runtime is built: a failure here is a bad -D value.
      throw CliException.badInput(
          "bad setting among " + properties + ": " + FailureReporter.describe(e), e);
    }
  }

  private Proxy proxy(Tether tether) {
    String text = grpc ? GrpcTarget.proxyString(proxyString, operation) : proxyString;
    Proxy proxy;
    try {
      proxy = tether.proxy(text);
    } catch (ProxyParseException e) {
      throw CliException.badProxyString("proxy string", text, e);
    }
    // A twoway proxy string becomes oneway on request (in call()); a "-o" proxy string is oneway
    // already.
    return proxy;
  }

  /**
   * The servers of the service named by the first argument, as ZooKeeper lists them now and later.
   */
  private Proxy discovered(Tether tether, ZooKeeperRegistry registry) {
    ZooKeeperDiscovery discovery = registry.discovery(proxyString);
    if (discovery.endpoints().isEmpty()) {
      throw CliException.failed(
          "no server of service '"
              + proxyString
              + "' is registered in ZooKeeper at "
              + zookeeper
              + " (or it did not answer); start one with ./tether serve --zookeeper "
              + zookeeper,
          null);
    }
    return tether.proxy(proxyString, discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
  }

  private void printReply(byte[] reply) {
    if (raw) {
      writeRaw(reply);
      return;
    }
    PrintWriter out = spec.commandLine().getOut();
    if (hex) {
      out.println(Payloads.hex(reply));
    } else if (json) {
      printLine(out, Payloads.jsonResult(reply));
    } else {
      String text = Payloads.utf8OrNull(reply);
      if (text == null) {
        spec.commandLine()
            .getErr()
            .println("(the reply is not valid UTF-8; --hex shows its bytes)");
        text = new String(reply, StandardCharsets.UTF_8);
      }
      printLine(out, text);
    }
    out.flush();
  }

  private void writeRaw(byte[] reply) {
    try {
      stdout.write(reply);
      stdout.flush();
    } catch (IOException e) {
      throw CliException.failed("cannot write the reply to standard output: " + e, e);
    }
  }

  /**
   * Prints the server's text ending in exactly one newline, without the characters that would act
   * on the terminal; nothing for an empty reply.
   */
  private static void printLine(PrintWriter out, String reply) {
    String text = PrintableText.keepingLines(reply);
    if (text.isEmpty()) {
      return;
    }
    out.print(text);
    if (!text.endsWith("\n")) {
      out.println();
    }
  }
}
