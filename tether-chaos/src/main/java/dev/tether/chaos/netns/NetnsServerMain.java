package dev.tether.chaos.netns;

import dev.tether.TetherServer;
import dev.tether.chaos.ChaosFeed;
import dev.tether.chaos.ChaosService;
import dev.tether.chaos.StreamLoad;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The server of the network-namespace tests, run as a child JVM inside the server's namespace
 * ({@code ip netns exec tch-srv java ... NetnsServerMain 10.213.0.2 7000}): a TetherServer running
 * {@link ChaosService} that prints {@code READY <endpoint>} once it listens and {@code EXEC <id>}
 * for every request it runs, and the stream service {@link ChaosFeed} (an item every {@link
 * StreamLoad#TICK}); it stops when its standard input closes (its parent went away).
 */
public final class NetnsServerMain {
  private NetnsServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: NetnsServerMain <host> <port>");
      System.exit(2);
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    ChaosFeed feed = new ChaosFeed(StreamLoad.TICK);
    TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h " + args[0] + " -p " + args[1])
            .service(ChaosService.NAME, new ChaosService(id -> out.println("EXEC " + id)))
            .streamService(ChaosFeed.NAME, feed)
            .build()
            .start();
    out.println("READY " + server.endpoints().get(0));
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      while (in.readLine() != null) {
        // Nothing to read: the parent closes stdin (or dies) to stop this server.
      }
    } finally {
      server.close();
      feed.close();
    }
  }
}
