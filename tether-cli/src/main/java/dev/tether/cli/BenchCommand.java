package dev.tether.cli;

import dev.tether.Proxy;
import dev.tether.ProxyParseException;
import dev.tether.Tether;
import dev.tether.grpc.TetherGrpc;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tether bench}: closed-loop load against any proxy, or with {@code --grpc} a gRPC server's
 * method, one thread per concurrent call, with a progress line each second and calls/s and latency
 * percentiles at the end.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Calls one operation as fast as it answers, from --concurrency threads, for --duration.",
      "",
      "Examples:",
      "  tether bench 'echo:tcp -h 127.0.0.1 -p 7000' --payload 64 --concurrency 16 \\",
      "    --duration 10s",
      "  tether bench --grpc 127.0.0.1:50051 --operation hello.Greeter/SayHello \\",
      "    --data @req.bin --concurrency 16 --duration 10s",
      ""
    })
public final class BenchCommand implements Callable<Integer> {
  /** Latencies up to a minute are recorded at 3 significant digits. */
  private static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(1);

  @Spec private CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "<proxy>",
      description = "The service, in proxy grammar; with --grpc, also host:port.")
  private String proxyString;

  @Option(
      names = "--grpc",
      description =
          "The server speaks gRPC: call the unary method --operation names "
              + "(package.Service/Method),"
              + " the payload its request message's bytes as they are, through Tether's "
              + "connections.")
  private boolean grpc;

  @Option(
      names = "--operation",
      description = "The operation (default: echo); with --grpc, the method's full name.")
  private String operation;

  @Option(
      names = "--payload",
      defaultValue = "64",
      paramLabel = "<bytes>",
      description = "Payload size in bytes, all zero (default: ${DEFAULT-VALUE}).")
  private int payloadBytes;

  @Option(
      names = "--data",
      paramLabel = "<payload>",
      description =
          "The payload instead of --payload zeros: UTF-8 text, or @file for the file's bytes (a"
              + " protobuf binary from protoc --encode).")
  private String data;

  @Option(
      names = "-H",
      paramLabel = "key:value",
      description =
          "A request header, repeatable (gRPC metadata with --grpc; a -bin key's value in base64).")
  private List<String> headers = new ArrayList<>();

  @Option(
      names = "--concurrency",
      defaultValue = "16",
      paramLabel = "<n>",
      description = "Calls in flight at once (default: ${DEFAULT-VALUE}).")
  private int concurrency;

  @Option(
      names = "--duration",
      defaultValue = "10s",
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description = "How long to call (default: ${DEFAULT-VALUE}).")
  private Duration duration;

  @Option(
      names = "--calls",
      defaultValue = "0",
      paramLabel = "<n>",
      description = "Stop after this many calls, if earlier (default: 0, no limit).")
  private long maxCalls;

  private final Recorder latencies = new Recorder(HIGHEST_NANOS, 3);
  private final LongAdder failures = new LongAdder();
  private final AtomicLong started = new AtomicLong();
  private final AtomicReference<String> firstFailure = new AtomicReference<>();
  private volatile boolean stopping;

  @Override
  public Integer call() throws InterruptedException {
    if (concurrency < 1 || payloadBytes < 0 || duration == null) {
      throw CliException.badInput(
          "--concurrency must be at least 1, --payload at least 0, --duration finite", null);
    }
    if (data != null && spec.commandLine().getParseResult().hasMatchedOption("--payload")) {
      throw CliException.badInput("--data and --payload both say what to send; choose one", null);
    }
    if (grpc && operation == null) {
      throw CliException.badInput(
          "with --grpc, name the method: --operation package.Service/Method", null);
    }
    List<Header> headerList = headers.stream().map(Header::parse).toList();
    byte[] payload = data == null ? new byte[payloadBytes] : Payloads.read(data, System.in);
    try (Tether tether = Tether.create()) {
      Proxy proxy = proxy(tether);
      Histogram total =
          grpc ? runGrpc(proxy, headerList, payload) : runTether(proxy, headerList, payload);
      printSummary(spec.commandLine().getOut(), total);
      // Some failures are what a bench under faults measures; no success at all is a failed run.
      return total.getTotalCount() == 0 && failures.sum() > 0 ? ExitCode.SOFTWARE : ExitCode.OK;
    }
  }

  private Proxy proxy(Tether tether) {
    String text = grpc ? GrpcTarget.proxyString(proxyString, operation) : proxyString;
    try {
      return tether.proxy(text);
    } catch (ProxyParseException e) {
      throw CliException.badProxyString("proxy", text, e);
    }
  }

  /** Untyped calls of the operation, the headers as their metadata. */
  private Histogram runTether(Proxy proxy, List<Header> headerList, byte[] payload)
      throws InterruptedException {
    for (Header h : headerList) {
      proxy = proxy.withMetadata(h.key(), h.value());
    }
    Proxy calls = proxy;
    String op = operation == null ? "echo" : operation;
    return run(request -> calls.invoke(op, request), payload);
  }

  /**
   * The calls go through a gRPC channel whose calls {@code proxy} places, one blocking call each.
   */
  private Histogram runGrpc(Proxy proxy, List<Header> headerList, byte[] payload)
      throws InterruptedException {
    MethodDescriptor<byte[], byte[]> method = GrpcTarget.method(operation, MethodType.UNARY, false);
    ManagedChannel channel = TetherGrpc.channel(proxy);
    try {
      Channel withHeaders =
          ClientInterceptors.intercept(
              channel, MetadataUtils.newAttachHeadersInterceptor(GrpcTarget.metadata(headerList)));
      return run(
          request ->
              ClientCalls.blockingUnaryCall(withHeaders, method, CallOptions.DEFAULT, request),
          payload);
    } finally {
      channel.shutdownNow();
    }
  }

  /** Runs {@code call} (a request in, its reply out, a failure thrown) from every caller thread. */
  private Histogram run(UnaryOperator<byte[]> call, byte[] payload) throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    List<Thread> callers = new ArrayList<>(concurrency);
    long startNanos = System.nanoTime();
    long endNanos = startNanos + duration.toNanos();
    for (int i = 0; i < concurrency; i++) {
      Thread t = new Thread(() -> callUntil(call, payload, endNanos), "bench-" + i);
      t.setDaemon(true);
      t.start();
      callers.add(t);
    }
    Histogram total = new Histogram(HIGHEST_NANOS, 3);
    Histogram interval = null;
    long previousCount = 0;
    long previousNanos = startNanos;
    for (Thread alive = firstAlive(callers); alive != null; alive = firstAlive(callers)) {
      // A caller still running: one that ended would return at once and spin this loop.
      alive.join(1000);
      interval = latencies.getIntervalHistogram(interval);
      total.add(interval);
      long now = System.nanoTime();
      long count = total.getTotalCount();
      double rate = (count - previousCount) * 1e9 / Math.max(1, now - previousNanos);
      out.printf(
          Locale.ROOT,
          "\r%4.0f s  %,12d calls  %,10.0f calls/s  p99 %s  failures %d   ",
          (now - startNanos) / 1e9,
          count,
          rate,
          micros(interval.getValueAtPercentile(99)),
          failures.sum());
      out.flush();
      previousCount = count;
      previousNanos = now;
    }
    // Calls that ended after the last progress line.
    total.add(latencies.getIntervalHistogram(interval));
    out.println();
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    total.setStartTimeStamp(0);
    total.setEndTimeStamp((long) (seconds * 1000));
    return total;
  }

  /** The first of {@code threads} still running, or null when all ended. */
  private static Thread firstAlive(List<Thread> threads) {
    for (Thread t : threads) {
      if (t.isAlive()) {
        return t;
      }
    }
    return null;
  }

  private void callUntil(UnaryOperator<byte[]> call, byte[] payload, long endNanos) {
    while (!stopping && System.nanoTime() < endNanos) {
      if (maxCalls > 0 && started.incrementAndGet() > maxCalls) {
        return;
      }
      if (maxCalls == 0) {
        started.incrementAndGet();
      }
      long t0 = System.nanoTime();
      try {
        call.apply(payload);
        latencies.recordValue(Math.min(HIGHEST_NANOS, System.nanoTime() - t0));
      } catch (StatusRuntimeException e) {
        failures.increment();
        firstFailure.compareAndSet(null, GrpcTarget.describe(e.getStatus()));
      } catch (RuntimeException e) {
        failures.increment();
        firstFailure.compareAndSet(null, e.toString());
      }
    }
  }

  private void printSummary(PrintWriter out, Histogram total) {
    double seconds = total.getEndTimeStamp() / 1000.0;
    out.printf(
        Locale.ROOT,
        "%,d calls in %.1f s: %,.0f calls/s, %d failed%n",
        total.getTotalCount(),
        seconds,
        total.getTotalCount() / Math.max(seconds, 1e-9),
        failures.sum());
    out.printf(
        Locale.ROOT,
        "latency p50 %s  p99 %s  p99.9 %s  max %s%n",
        micros(total.getValueAtPercentile(50)),
        micros(total.getValueAtPercentile(99)),
        micros(total.getValueAtPercentile(99.9)),
        micros(total.getMaxValue()));
    if (firstFailure.get() != null) {
      out.println("first failure: " + firstFailure.get());
    }
    out.flush();
  }

  private static String micros(long nanos) {
    return nanos >= 10_000_000 ? nanos / 1_000_000 + " ms" : nanos / 1000 + " µs";
  }
}
