package dev.tether.bench;

import java.io.IOException;
import java.io.InputStream;

/**
 * The server process of the two-process mode: starts the server of the system named by the only
 * argument on 127.0.0.1, prints {@link ServerProcess#READY_PREFIX} and the port, and serves until
 * its standard input reaches its end (the benchmark closed it, or died).
 */
public final class ServerMain {

  private ServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println(
          "usage: ServerMain SYSTEM-NAME; known: " + SystemCatalog.names(SystemCatalog.all()));
      System.exit(2);
    }
    SystemSpec spec = SystemCatalog.byName(args[0]);
    try (BenchServer server = spec.server().get()) {
      System.out.println(ServerProcess.READY_PREFIX + server.start());
      System.out.flush();
      awaitEndOfInput(System.in);
    }
    // Some peers leave non-daemon threads behind after closing.
    System.exit(0);
  }

  private static void awaitEndOfInput(InputStream in) throws IOException {
    byte[] ignored = new byte[256];
    while (in.read(ignored) >= 0) {
      // nothing is expected on the input: its end is the signal
    }
  }
}
