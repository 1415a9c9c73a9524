package dev.tether.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A system's server in a JVM of its own ({@link ServerMain}), started from this JVM's class path
 * and Java binary, listening on 127.0.0.1: the two-process mode, as users run a server. It stops
 * when its standard input closes, so it cannot outlive the benchmark.
 */
final class ServerProcess implements AutoCloseable {

  static final String READY_PREFIX = "tether-bench server listening on port ";
  static final String JVM_ARGUMENTS_PROPERTY = "tether.bench.serverJvmArgs";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

  private final Process process;
  private final int port;

  private ServerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the server of {@code spec} in a new JVM and returns once it listens. */
  static ServerProcess start(SystemSpec spec) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(extraJvmArguments());
    command.addAll(
        List.of(
            "-cp", System.getProperty("java.class.path"), ServerMain.class.getName(), spec.name()));
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      return new ServerProcess(process, awaitPort(process, spec));
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  /**
   * JVM options for server processes from {@value #JVM_ARGUMENTS_PROPERTY}, split at spaces: to
   * profile a server, e.g. {@code
   * -Dtether.bench.serverJvmArgs=-XX:StartFlightRecording=filename=server.jfr}.
   */
  private static List<String> extraJvmArguments() {
    String arguments = System.getProperty(JVM_ARGUMENTS_PROPERTY, "").trim();
    return arguments.isEmpty() ? List.of() : List.of(arguments.split("\\s+"));
  }

  /**
   * Reads the server's output on a thread of its own until it reports its port, then drains the
   * rest.
   */
  private static int awaitPort(Process process, SystemSpec spec)
      throws IOException, InterruptedException {
    CompletableFuture<Integer> port = new CompletableFuture<>();
    Thread reader = new Thread(() -> readOutput(process, port), "server-output " + spec.name());
    reader.setDaemon(true);
    reader.start();
    try {
      return port.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException(
          "the server process of " + spec.name() + " did not report its port: " + e, e);
    }
  }

  private static void readOutput(Process process, CompletableFuture<Integer> port) {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (!port.isDone() && line.startsWith(READY_PREFIX)) {
          port.complete(Integer.parseInt(line.substring(READY_PREFIX.length()).trim()));
        }
      }
      port.completeExceptionally(
          new IOException("the server process exited with " + process.waitFor()));
    } catch (IOException | InterruptedException | RuntimeException e) {
      port.completeExceptionally(e);
    }
  }

  int port() {
    return port;
  }

  /**
   * The CPU time, user plus system, the server's process has used so far (tick resolution: 10 ms on
   * Linux).
   */
  long cpuNanos() {
    return process.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }

  /** Closes the server's standard input, which stops it, and waits for it to exit. */
  @Override
  public void close() {
    try {
      process.getOutputStream().close();
      if (!process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
