package dev.tether.bench;

import dev.tether.ConnectionState;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Memory one idle Tether connection costs, on the client and on the server: the server runs in a
 * JVM of its own (started from this one's class path, stopped when its standard input closes), so
 * each process's heap and direct memory are its own and each needs one file descriptor per
 * connection, not two. The client opens N connections to it over loopback (one connection id each,
 * so none is shared), lets them sit idle (heartbeats only), and both sides report heap used after a
 * full GC and Netty's direct memory at 0, N/2 and N connections. Printed per connection: the total
 * growth over N, and the slope between N/2 and N, which leaves out one-time costs.
 *
 * <p>Usage: {@code IdleConnectionMemory [connections]} (default 10000); bounded: connects in waves
 * with a timeout each, then closes everything.
 */
public final class IdleConnectionMemory {
  private static final int DEFAULT_CONNECTIONS = 10_000;
  private static final int WAVE = 500;
  private static final long WAVE_TIMEOUT_SECONDS = 60;

  private IdleConnectionMemory() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals(MemoryServerProcess.SERVER_FLAG)) {
      serve();
      return;
    }
    int connections = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_CONNECTIONS;
    try (MemoryServerProcess server = MemoryServerProcess.start(IdleConnectionMemory.class);
        Tether tether = Tether.create()) {
      String proxyString = "idle:tcp -h 127.0.0.1 -p " + server.port;
      ProcessMemory[] client = new ProcessMemory[3];
      ProcessMemory[] serverMemory = new ProcessMemory[3];
      client[0] = ProcessMemory.measure();
      serverMemory[0] = server.measure();
      List<Proxy> open = new ArrayList<>(connections);
      connect(tether, proxyString, open, connections / 2);
      server.awaitCount(open.size());
      client[1] = ProcessMemory.measure();
      serverMemory[1] = server.measure();
      connect(tether, proxyString, open, connections);
      server.awaitCount(open.size());
      client[2] = ProcessMemory.measure();
      serverMemory[2] = server.measure();
      long active =
          tether.status().connections().stream()
              .filter(c -> c.state() == ConnectionState.ACTIVE)
              .count();
      System.out.printf(
          Locale.ROOT,
          "idle connections: %d (client sees %d active, server %d)%n",
          connections,
          active,
          server.count());
      ProcessMemory.report(System.out, "client", "connection", client, connections);
      ProcessMemory.report(System.out, "server", "connection", serverMemory, connections);
    }
    System.exit(
        0); // the runtime's and the server reader's threads are done; do not wait for stragglers
  }

  private static void connect(Tether tether, String proxyString, List<Proxy> open, int upTo)
      throws Exception {
    while (open.size() < upTo) {
      List<CompletableFuture<Void>> wave = new ArrayList<>();
      for (int i = 0; i < WAVE && open.size() < upTo; i++) {
        Proxy proxy = tether.proxy(proxyString).withConnectionId("idle-" + open.size());
        open.add(proxy);
        wave.add(proxy.connectAsync());
      }
      CompletableFuture.allOf(wave.toArray(new CompletableFuture<?>[0]))
          .get(WAVE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
  }

  /** The server process: serves until standard input ends. */
  private static void serve() throws IOException {
    try (TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("idle", (operation, payload, context) -> payload)
            .build()
            .start()) {
      MemoryServerProcess.serve(
          server.endpoints().get(0).port(), () -> server.status().connections());
    }
    System.exit(0);
  }
}
