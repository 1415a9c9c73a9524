package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one case of {@code src/test/node/client.js} (grpc-js under Node) against a server and
 * returns the {@code key=value} lines it printed. Without Node or the client's packages the calling
 * test is skipped with a message saying how to run it, except under CI (the CI variable set), whose
 * script installs both: there it fails instead, so the test can never pass by not running.
 */
final class NodeClient {
  private static final Path DIRECTORY = Path.of("src", "test", "node");
  private static final long TIMEOUT_SECONDS = 60;

  private NodeClient() {}

  /** The case's printed values; fails the test if the client exited non-zero or hung. */
  static Map<String, String> run(int port, String caseName) throws Exception {
    Path node = nodeOrSkip();
    Process process =
        new ProcessBuilder(node.toString(), "client.js", "127.0.0.1:" + port, caseName)
            .directory(DIRECTORY.toFile())
            .redirectErrorStream(false)
            .start();
    process.getOutputStream().close();
    boolean exited = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly();
    }
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(exited)
        .as("node client still running after %d s: %s", TIMEOUT_SECONDS, err)
        .isTrue();
    assertThat(process.exitValue()).as("node client's exit code; stderr: %s", err).isZero();
    Map<String, String> values = new HashMap<>();
    out.lines()
        .filter(l -> l.contains("="))
        .forEach(l -> values.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
    return values;
  }

  private static Path nodeOrSkip() {
    Path node = onPath(System.getProperty("tether.node", "node"));
    boolean installed = Files.isDirectory(DIRECTORY.resolve("node_modules/@grpc/grpc-js"));
    String why =
        node == null
            ? "no node on the PATH; to run it, `apt-get install -y nodejs npm` (Debian)"
                + " or point -Dtether.node at it"
            : "the Node client's packages are not installed; to run it, `npm ci` in "
                + DIRECTORY.toAbsolutePath();
    if (System.getenv("CI") != null) {
      assertThat(node != null && installed).as("CI must run the Node client test: " + why).isTrue();
    }
    assumeTrue(node != null && installed, "Node client test skipped: " + why);
    return node;
  }

  private static Path onPath(String command) {
    if (command.contains(File.separator)) {
      Path given = Path.of(command);
      return Files.isExecutable(given) ? given : null;
    }
    String path = System.getenv().getOrDefault("PATH", "");
    return Arrays.stream(path.split(File.pathSeparator))
        .map(dir -> Path.of(dir, command))
        .filter(Files::isExecutable)
        .findFirst()
        .orElse(null);
  }

  /** Reads a base64 value the client printed as text. */
  static String text(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }
}
