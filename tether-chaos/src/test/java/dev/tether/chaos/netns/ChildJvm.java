package dev.tether.chaos.netns;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A Java program run inside a network namespace ({@code ip netns exec NS java -cp <this test's
 * class path> MAIN args}), since a JVM cannot enter a namespace itself. Its output lines are
 * collected as they come; its error output goes to a file for the report. Closing it closes its
 * standard input (which stops the server main) and then ends it.
 */
final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Thread reader;
  private final Path errors;

  private ChildJvm(Process process, Path errors) {
    this.process = process;
    this.errors = errors;
    this.reader = new Thread(this::readLines, "child-output-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  static ChildJvm start(String namespace, List<String> jvmOptions, Class<?> main, String... args) {
    List<String> java = new ArrayList<>();
    java.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A short-lived JVM: start fast, stay small.
    java.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx96m", "-Xshare:auto"));
    java.addAll(jvmOptions);
    java.add("-cp");
    java.add(classPath());
    java.add(main.getName());
    java.addAll(List.of(args));
    try {
      Path errors =
          Path.of("target", "netns-" + main.getSimpleName() + "-" + System.nanoTime() + ".err");
      Process p =
          new ProcessBuilder(Netns.exec(namespace, java)).redirectError(errors.toFile()).start();
      return new ChildJvm(p, errors);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Surefire runs tests from a manifest-only jar; the real class path is in this property. */
  private static String classPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank()
        ? surefire
        : System.getProperty("java.class.path");
  }

  List<String> lines() {
    return List.copyOf(lines);
  }

  /** The first output line {@code match} accepts, or null. */
  String firstLine(Predicate<String> match) {
    for (String l : lines) {
      if (match.test(l)) {
        return l;
      }
    }
    return null;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Waits at most {@code seconds} for the program to end; whether it did. */
  boolean awaitExit(long seconds) throws InterruptedException {
    boolean ended = process.waitFor(seconds, TimeUnit.SECONDS);
    if (ended) {
      reader.join(TimeUnit.SECONDS.toMillis(5));
    }
    return ended;
  }

  Path errors() {
    return errors;
  }

  private void readLines() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String l = in.readLine(); l != null; l = in.readLine()) {
        lines.add(l);
      }
    } catch (IOException e) {
      // The process ended; what it printed is kept.
    }
  }

  @Override
  public void close() {
    stop();
  }

  /**
   * Closes its standard input, which ends our mains, and waits for it; ends it if it lingers.
   * Idempotent.
   */
  void stop() {
    try {
      process.getOutputStream().close();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
