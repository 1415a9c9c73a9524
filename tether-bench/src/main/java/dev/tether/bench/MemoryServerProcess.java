package dev.tether.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * The server process of a memory figure, and the client's handle on it: started from this JVM's
 * class path as {@code <main class> --server}, it reports its port, then answers one line per
 * request line ("measure": its {@link ProcessMemory}; anything else: its count of what is being
 * measured) until its standard input ends, so it cannot outlive the client.
 */
final class MemoryServerProcess implements AutoCloseable {
  static final String SERVER_FLAG = "--server";
  private static final String PORT_PREFIX = "memory server port ";
  private static final long WAIT_SECONDS = 60;

  private final Process process;
  private final BufferedReader answers;
  private final PrintWriter requests;
  final int port;

  private MemoryServerProcess(Process process) throws IOException {
    this.process = process;
    this.answers =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.requests = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    String first = answers.readLine();
    if (first == null || !first.startsWith(PORT_PREFIX)) {
      throw new IOException("the server process did not report its port: " + first);
    }
    this.port = Integer.parseInt(first.substring(PORT_PREFIX.length()));
  }

  /**
   * Starts {@code main} with {@link #SERVER_FLAG} in a JVM of its own and returns once it listens.
   */
  static MemoryServerProcess start(Class<?> main) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process process =
        new ProcessBuilder(
                java, "-cp", System.getProperty("java.class.path"), main.getName(), SERVER_FLAG)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      return new MemoryServerProcess(process);
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  /** The server side: reports {@code port}, then answers requests until standard input ends. */
  static void serve(int port, IntSupplier count) throws IOException {
    PrintStream out = System.out;
    out.println(PORT_PREFIX + port);
    out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      out.println(
          line.equals("measure")
              ? ProcessMemory.measure().line()
              : String.valueOf(count.getAsInt()));
      out.flush();
    }
  }

  ProcessMemory measure() throws IOException {
    return ProcessMemory.parse(ask("measure"));
  }

  int count() throws IOException {
    return Integer.parseInt(ask("count").trim());
  }

  /** Waits, bounded, until the server counts {@code expected}. */
  void awaitCount(int expected) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (count() < expected) {
      if (System.nanoTime() > deadline) {
        throw new IOException("the server counts " + count() + " of " + expected);
      }
      Thread.sleep(100); // a benchmark's polling of another process, not a test's wait
    }
  }

  private String ask(String request) throws IOException {
    requests.println(request);
    String answer = answers.readLine();
    if (answer == null) {
      throw new IOException("the server process ended");
    }
    return answer;
  }

  @Override
  public void close() {
    requests.close();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
