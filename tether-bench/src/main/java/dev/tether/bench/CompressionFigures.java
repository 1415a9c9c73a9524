package dev.tether.bench;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.testkit.Direction;
import dev.tether.testkit.FaultProxy;
import dev.tether.testkit.JsonLikeText;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * What {@code -z} changes, side by side in one run, for 4 KiB and 256 KiB JSON-like echo calls:
 * bytes on the wire per call each way (counted by a fault proxy over a fixed number of calls), and
 * calls/s on direct loopback with a bounded number of calls in flight (each measurement bounded in
 * time). Run with {@code java -cp tether-bench/target/tether-bench.jar
 * dev.tether.bench.CompressionFigures [seconds] [inFlight]}.
 */
public final class CompressionFigures {
  private static final int COUNTED_CALLS = 50;

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
    int inFlight = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (operation, payload, context) -> payload)
            .build()
            .start();
    int port = server.endpoints().get(0).port();
    try (server;
        Tether tether = Tether.create();
        FaultProxy wire = FaultProxy.start("127.0.0.1", port)) {
      System.out.printf(
          "echo of JSON-like text; calls/s with %d in flight over %.0f s on loopback%n",
          inFlight, seconds);
      System.out.printf(
          "%-8s %-6s %14s %14s %10s%n",
          "payload", "-z", "bytes/call ->", "bytes/call <-", "calls/s");
      for (int size : new int[] {4 * 1024, 256 * 1024}) {
        byte[] payload = JsonLikeText.generate(size, 42);
        for (String z : new String[] {"", " -z"}) {
          // A fresh connection id per row keeps each row's bytes on its own connection.
          String id = "row-" + size + z.trim();
          Proxy counted = tether.proxy("echo:" + wire.endpoint() + z).withConnectionId(id);
          long[] bytes = countBytes(wire, counted, payload);
          Proxy direct = tether.proxy("echo:tcp -h 127.0.0.1 -p " + port + z).withConnectionId(id);
          double rate = callsPerSecond(direct, payload, seconds * 0.2, inFlight); // warm-up
          rate = callsPerSecond(direct, payload, seconds, inFlight);
          System.out.printf(
              "%-8s %-6s %14d %14d %10.0f%n",
              size / 1024 + " KiB", z.isEmpty() ? "off" : "on", bytes[0], bytes[1], rate);
        }
      }
    }
  }

  /**
   * Bytes per call each way, over {@link #COUNTED_CALLS} calls after one that opens the connection.
   */
  private static long[] countBytes(FaultProxy wire, Proxy p, byte[] payload) {
    p.invoke("say", payload);
    long out = wire.bytesForwarded(Direction.CLIENT_TO_SERVER);
    long in = wire.bytesForwarded(Direction.SERVER_TO_CLIENT);
    for (int i = 0; i < COUNTED_CALLS; i++) {
      p.invoke("say", payload);
    }
    return new long[] {
      (wire.bytesForwarded(Direction.CLIENT_TO_SERVER) - out) / COUNTED_CALLS,
      (wire.bytesForwarded(Direction.SERVER_TO_CLIENT) - in) / COUNTED_CALLS
    };
  }

  private static double callsPerSecond(Proxy p, byte[] payload, double seconds, int inFlight)
      throws Exception {
    Semaphore slots = new Semaphore(inFlight);
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    long calls = 0;
    while (System.nanoTime() < end) {
      if (!slots.tryAcquire(1, TimeUnit.SECONDS)) {
        throw new IllegalStateException("no answer within a second");
      }
      CompletableFuture<byte[]> f = p.invokeAsync("say", payload);
      f.whenComplete((r, e) -> slots.release());
      calls++;
    }
    if (!slots.tryAcquire(inFlight, 10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("calls still in flight after 10 s");
    }
    return (calls - 0) / ((System.nanoTime() - start) / 1e9);
  }
}
