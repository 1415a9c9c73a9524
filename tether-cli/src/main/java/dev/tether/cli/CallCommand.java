package dev.tether.cli;

import dev.tether.Idempotency;
import dev.tether.InvocationMode;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.ProxyParseException;
import dev.tether.Tether;
import dev.tether.zookeeper.ZooKeeperDiscovery;
import dev.tether.zookeeper.ZooKeeperRegistry;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tether call}: one untyped call, its reply printed on standard output. */
@Command(
    name = "call",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "Calls one operation of a remote service and prints the reply.",
        "",
        "Examples:",
        "  tether call 'echo:tcp -p 7000' echo hello",
        "  tether call --hex 'echo:tcp -p 7000' echo @picture.png",
        "  tether call --json --idempotent 'kv:tcp -p 7000' put '[\"color\",\"blue\"]'",
        "  tether call --json 'kv:tcp -p 7000' increment '\"visits\"'",
        "  tether call --zookeeper 127.0.0.1:2181 --json kv get color",
        ""
    })
public final class CallCommand implements Callable<Integer> {
  @Spec
  private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "<proxy>",
      description = "The service, in proxy grammar: identity:endpoint[:endpoint...]; with --zookeeper, the"
          + " service's name alone.")
  private String proxyString;

  @Parameters(index = "1", paramLabel = "<operation>", description = "The operation to call.")
  private String operation;

  @Parameters(index = "2", arity = "0..1", paramLabel = "<payload>",
      description = "UTF-8 text (none: an empty payload); @file sends the file's bytes, @- reads standard"
          + " input, @@text sends '@text'.")
  private String payload;

  @Option(names = "--idempotent",
      description = "Declare the call idempotent: Tether may retry it even after it was sent.")
  private boolean idempotent;

  @Option(names = "--oneway", description = "Send without waiting for a reply; prints nothing.")
  private boolean oneway;

  @Option(names = "--timeout", defaultValue = "10s", converter = DurationConverter.class,
      paramLabel = "<duration>",
      description = "Invocation timeout, connecting included: 500ms, 2s, 1min or infinite (default: ${DEFAULT-VALUE}).")
  private Duration timeout;

  @Option(names = "--hex", description = "Print the reply as hex instead of text.")
  private boolean hex;

  @Option(names = "--json",
      description = "Talk to a typed service: the payload is JSON (an array of arguments, or the only"
          + " argument), sent in Tether's default codec; the reply is printed as JSON.")
  private boolean json;

  @Option(names = "-D", paramLabel = "tether.key=value",
      description = "A Tether setting, e.g. -Dtether.trace.retry=2 or -Dtether.retry.intervals='0 100'.")
  private Map<String, String> properties = new LinkedHashMap<>();

  @Option(names = "--zookeeper", paramLabel = "<host:port[,host:port]>",
      description = "Find the service's servers in this ZooKeeper (under /tether) and balance over them.")
  private String zookeeper;

  /** Where {@code @-} reads from; tests replace it. */
  InputStream stdin = System.in;

  @Override
  public Integer call() {
    checkOptions();
    byte[] body = Payloads.read(payload, stdin);
    if (json) {
      body = Payloads.jsonArguments(body);
    }
    try (Tether tether = newTether(); ZooKeeperRegistry registry = zookeeper == null ? null : ZooKeeperRegistry.connect(zookeeper)) {
      Proxy proxy = (registry == null ? proxy(tether) : discovered(tether, registry)).withInvocationTimeout(timeout);
      proxy = oneway ? proxy.withMode(InvocationMode.ONEWAY) : proxy;
      byte[] reply = proxy.invoke(operation, body, idempotent ? Idempotency.IDEMPOTENT : Idempotency.NOT_IDEMPOTENT);
      if (proxy.mode().isBatch()) {
        // A batch proxy ("-O", "-D") only queues the request; the command ends here, so send it now.
        proxy.flushBatch();
      }
      if (proxy.mode().expectsResponse()) {
        printReply(reply);
      }
    }
    return ExitCode.OK;
  }

  private void checkOptions() {
    if (hex && json) {
      throw new ParameterException(spec.commandLine(), "--hex and --json both say how to print the reply; choose one");
    }
    if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
      throw new ParameterException(spec.commandLine(), "--timeout must be positive (or infinite)");
    }
  }

  private Tether newTether() {
    Properties settings = new Properties();
    settings.putAll(properties);
    try {
      return Tether.builder().properties(settings).build();
    } catch (RuntimeException e) {
      // Settings are read when the runtime is built: a failure here is a bad -D value.
      throw CliException.badInput("bad setting among " + properties + ": " + FailureReporter.describe(e), e);
    }
  }

  private Proxy proxy(Tether tether) {
    Proxy proxy;
    try {
      proxy = tether.proxy(proxyString);
    } catch (ProxyParseException e) {
      throw CliException.badProxyString("proxy string", proxyString, e);
    }
    // A twoway proxy string becomes oneway on request (in call()); a "-o" proxy string is oneway already.
    return proxy;
  }

  /** The servers of the service named by the first argument, as ZooKeeper lists them now and later. */
  private Proxy discovered(Tether tether, ZooKeeperRegistry registry) {
    ZooKeeperDiscovery discovery = registry.discovery(proxyString);
    if (discovery.endpoints().isEmpty()) {
      throw CliException.failed("no server of service '" + proxyString + "' is registered in ZooKeeper at " + zookeeper
          + " (or it did not answer); start one with ./tether serve --zookeeper " + zookeeper, null);
    }
    return tether.proxy(proxyString, discovery).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
  }

  private void printReply(byte[] reply) {
    PrintWriter out = spec.commandLine().getOut();
    if (hex) {
      out.println(Payloads.hex(reply));
    } else if (json) {
      printLine(out, Payloads.jsonResult(reply));
    } else {
      String text = Payloads.utf8OrNull(reply);
      if (text == null) {
        spec.commandLine().getErr().println("(the reply is not valid UTF-8; --hex shows its bytes)");
        text = new String(reply, StandardCharsets.UTF_8);
      }
      printLine(out, text);
    }
    out.flush();
  }

  /** Prints text ending in exactly one newline; nothing for an empty reply. */
  private static void printLine(PrintWriter out, String text) {
    if (text.isEmpty()) {
      return;
    }
    out.print(text);
    if (!text.endsWith("\n")) {
      out.println();
    }
  }
}
