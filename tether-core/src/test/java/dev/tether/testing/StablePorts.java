package dev.tether.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;

/**
 * Ports for listeners that stop and must later listen on the same port again (a restarted server, a
 * fault proxy's {@code restart()}): chosen below the kernel's ephemeral range, so no outgoing
 * connection of any process on the machine can take the port while it is free.
 *
 * <p>A port the kernel hands out for {@code bind(0)} lies inside that range; once its listener
 * stops, the next outgoing connect anywhere may get it as its local port, and the restart fails
 * with "address in use" for as long as that connection lives. Loaded CI machines running several
 * test JVMs at once do exactly that. Used by the test kit's fault proxy, the demo's servers and the
 * loopback ZooKeeper ensembles, and by tests that start a server after its client; it ships in
 * tether-core's test-fixtures jar, not in the runtime's.
 */
public final class StablePorts {
  /** The lowest port tried: well above the ports system services use. */
  private static final int LOWEST = 20_000;

  private static final int ATTEMPTS = 64;
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  /** Linux's default first ephemeral port, when the range cannot be read. */
  private static final int DEFAULT_EPHEMERAL_LOW = 32_768;

  private StablePorts() {}

  /**
   * Calls {@code listen} with ports below the ephemeral range, from a random one on (so test JVMs
   * running at once seldom collide), until one returns; a port taken by another listener throws,
   * and the next is tried. Where the range leaves no room, {@code listen} gets port 0.
   *
   * @throws RuntimeException what the last attempt threw, when none succeeded
   */
  public static <T> T listenOnOne(IntFunction<T> listen) {
    int below = ephemeralLow();
    if (below - LOWEST < ATTEMPTS) {
      return listen.apply(0);
    }
    // Not the injectable, seeded randomness of the runtime: concurrent JVMs must pick differently.
    int first = LOWEST + ThreadLocalRandom.current().nextInt(below - LOWEST);
    RuntimeException last = null;
    for (int i = 0; i < ATTEMPTS; i++) {
      int port = LOWEST + Math.floorMod(first - LOWEST + i * 7919, below - LOWEST);
      try {
        return listen.apply(port);
      } catch (RuntimeException taken) {
        last = taken;
      }
    }
    throw last;
  }

  /**
   * A loopback port below the ephemeral range that nothing listens on now, for a listener that
   * starts later (a server started after its client, a ZooKeeper ensemble's ports): another
   * listener may still take it meanwhile, no outgoing connection can.
   */
  public static int unusedPort() {
    return listenOnOne(
        port -> {
          try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return port;
          } catch (IOException taken) {
            throw new UncheckedIOException(taken);
          }
        });
  }

  /** The first port of the ephemeral range, or Linux's default where it cannot be read. */
  public static int ephemeralLow() {
    // Read as a line: procfs reports a size of 0, and Files.readString then returned one byte here.
    try (BufferedReader reader = Files.newBufferedReader(EPHEMERAL_RANGE)) {
      return Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException unreadable) {
      return DEFAULT_EPHEMERAL_LOW;
    }
  }
}
