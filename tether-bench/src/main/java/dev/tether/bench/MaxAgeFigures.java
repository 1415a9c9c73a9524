package dev.tether.bench;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What maximum connection age costs and what it buys, in one run of about 22 s on loopback. First
 * the latency of a steady load (4 callers, one call at a time each) against a server whose
 * connections never age and one whose connections are replaced every 500 ms, in alternating 3 s
 * phases (ABAB, so drift on a noisy machine hits both); then the share of calls that a server
 * started after the client gets within 10 s, behind a two-endpoint list, with a max age of 2 s on
 * both servers. Run with {@code java -cp tether-bench/target/tether-bench.jar
 * dev.tether.bench.MaxAgeFigures}.
 */
public final class MaxAgeFigures {
  private static final int CALLERS = 4;
  private static final Duration PHASE = Duration.ofSeconds(3);
  private static final Duration ROTATING_AGE = Duration.ofMillis(500);
  private static final Duration SHARE_AGE = Duration.ofSeconds(2);
  private static final Duration SHARE_RUN = Duration.ofSeconds(10);
  private static final byte[] PAYLOAD = new byte[64];

  public static void main(String[] args) throws Exception {
    latencyAcrossRotations();
    shareOfALaterServer();
  }

  private static TetherServer server(String name, int port, Duration maxAge) {
    TetherServer.Builder b =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p " + port)
            .random(new Random(port))
            .service("svc", (op, payload, ctx) -> name.getBytes(StandardCharsets.UTF_8));
    if (maxAge != null) {
      b.maxConnectionAge(maxAge);
    }
    return b.build().start();
  }

  private static void latencyAcrossRotations() throws Exception {
    try (TetherServer steady = server("steady", 0, null);
        TetherServer rotating = server("rotating", 0, ROTATING_AGE);
        Tether tether = Tether.create()) {
      Proxy toSteady = tether.proxy(steady.proxyString("svc"));
      Proxy toRotating = tether.proxy(rotating.proxyString("svc"));
      run(i -> toSteady, Duration.ofSeconds(1), new Recorder(3)); // warm-up, both paths
      run(i -> toRotating, Duration.ofSeconds(1), new Recorder(3));
      Histogram without = new Histogram(3);
      Histogram with = new Histogram(3);
      long[] calls = new long[2];
      for (int round = 0; round < 2; round++) {
        calls[0] += phase(toSteady, without);
        calls[1] += phase(toRotating, with);
      }
      long rotations = rotating.status().aged();
      System.out.printf(
          "steady load, %d callers, 64 B calls, %d s per side in ABAB phases of %d s%n",
          CALLERS, 2 * PHASE.toSeconds(), PHASE.toSeconds());
      System.out.printf(
          "%-34s %10s %9s %9s %10s %10s%n",
          "", "calls", "p50(us)", "p99(us)", "p99.9(us)", "rotations");
      print("no max age", calls[0], without, 0);
      print("max age " + ROTATING_AGE.toMillis() + " ms", calls[1], with, rotations);
      System.out.printf(
          "p99 with rotations / without: %.2fx%n%n",
          with.getValueAtPercentile(99) / (double) Math.max(1, without.getValueAtPercentile(99)));
    }
  }

  private static long phase(Proxy p, Histogram into) throws Exception {
    Recorder recorder = new Recorder(3);
    long n = run(i -> p, PHASE, recorder);
    into.add(recorder.getIntervalHistogram());
    return n;
  }

  /**
   * {@code CALLERS} threads call their proxy until {@code length} has passed; returns the calls
   * made.
   */
  private static long run(IntFunction<Proxy> proxyOf, Duration length, Recorder latencies)
      throws Exception {
    long end = System.nanoTime() + length.toNanos();
    AtomicLong calls = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < CALLERS; c++) {
      Proxy p = proxyOf.apply(c);
      Thread t =
          new Thread(
              () -> {
                while (System.nanoTime() < end) {
                  long start = System.nanoTime();
                  p.invoke("write", PAYLOAD);
                  latencies.recordValue((System.nanoTime() - start) / 1_000);
                  calls.incrementAndGet();
                }
              });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    return calls.get();
  }

  private static void print(String title, long calls, Histogram h, long rotations) {
    System.out.printf(
        "%-34s %10d %9d %9d %10d %10d%n",
        title,
        calls,
        h.getValueAtPercentile(50),
        h.getValueAtPercentile(99),
        h.getValueAtPercentile(99.9),
        rotations);
  }

  private static void shareOfALaterServer() throws Exception {
    int laterPort = freePort();
    try (TetherServer first = server("first", 0, SHARE_AGE);
        Tether tether = Tether.create()) {
      String list =
          "svc:tcp -h 127.0.0.1 -p "
              + first.endpoints().get(0).port()
              + ":tcp -h 127.0.0.1 -p "
              + laterPort;
      List<Proxy> proxies = new ArrayList<>();
      for (int c = 0; c < CALLERS; c++) {
        proxies.add(tether.proxy(list)); // RANDOM selection (the default), one binding per caller
      }
      for (Proxy p : proxies) {
        p.invoke("write", PAYLOAD); // every caller connected before the later server exists
      }
      try (TetherServer later = server("later", laterPort, SHARE_AGE)) {
        long start = System.nanoTime();
        long[][] perSecond = new long[(int) SHARE_RUN.toSeconds()][2];
        List<Thread> threads = new ArrayList<>();
        for (Proxy p : proxies) {
          Thread t =
              new Thread(
                  () -> {
                    long[][] mine = new long[perSecond.length][2];
                    long now;
                    while ((now = System.nanoTime() - start) < SHARE_RUN.toNanos()) {
                      String who = new String(p.invoke("write", PAYLOAD), StandardCharsets.UTF_8);
                      mine[(int) (now / 1_000_000_000L)][who.equals("later") ? 1 : 0]++;
                    }
                    synchronized (perSecond) {
                      for (int s = 0; s < mine.length; s++) {
                        perSecond[s][0] += mine[s][0];
                        perSecond[s][1] += mine[s][1];
                      }
                    }
                  });
          threads.add(t);
          t.start();
        }
        for (Thread t : threads) {
          t.join();
        }
        System.out.printf(
            "a server started after the client, behind a two-endpoint list, both with max age %d s, %d callers%n",
            SHARE_AGE.toSeconds(), CALLERS);
        System.out.printf("%-8s %12s%n", "second", "later's share");
        long total = 0;
        long toLater = 0;
        for (int s = 0; s < perSecond.length; s++) {
          long all = perSecond[s][0] + perSecond[s][1];
          total += all;
          toLater += perSecond[s][1];
          System.out.printf("%-8d %11.1f%%%n", s + 1, 100.0 * perSecond[s][1] / Math.max(1, all));
        }
        System.out.printf(
            "over the %d s: %.1f%% of %d calls; rotations: first %d, later %d%n",
            SHARE_RUN.toSeconds(),
            100.0 * toLater / Math.max(1, total),
            total,
            first.status().aged(),
            later.status().aged());
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }
}
