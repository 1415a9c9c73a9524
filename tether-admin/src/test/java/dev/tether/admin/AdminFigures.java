package dev.tether.admin;

import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.testkit.InProcessCluster;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The status page's two costs, measured on this machine, not a test: (1) calls/s of a busy runtime
 * with and without {@code /status.json} polled 100 times a second, in alternating phases of one
 * run; (2) heap after GC of the runtime's JVM and the page's JavaScript heap while the page stays
 * open against that load, with a node killed and restarted every 10 s so events keep coming.
 *
 * <pre>java -cp ... dev.tether.admin.AdminFigures [phaseSeconds=5] [pairs=3] [memorySeconds=120]
 * </pre>
 */
public final class AdminFigures {
  private static final int CALLERS = 8;

  private AdminFigures() {}

  public static void main(String[] args) throws Exception {
    int phaseSeconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int memorySeconds = args.length > 2 ? Integer.parseInt(args[2]) : 120;
    TetherAdmin.Builder page = TetherAdmin.builder().bind("127.0.0.1", 0);
    try (InProcessCluster cluster =
            InProcessCluster.start(
                3,
                (node, server) ->
                    server
                        .listener(page.listener())
                        .service("echo", (op, payload, ctx) -> payload));
        Tether tether =
            Tether.builder()
                .listener(page.listener())
                .property("tether.cluster.reconnect.policy", "standard")
                .build()) {
      Proxy echo =
          tether.proxy(cluster.proxyString("echo")).withLoadBalancing(LoadBalancing.ROUND_ROBIN);
      for (int i = 0; i < 3; i++) {
        page.observe(cluster.server(i));
      }
      try (TetherAdmin admin = page.observe(tether).build().start()) {
        LongAdder calls = new LongAdder();
        List<Thread> callers =
            startCallers(echo, calls, (phaseSeconds * pairs * 2 + memorySeconds + 30) * 1000L);
        statusJsonCost(admin, calls, phaseSeconds, pairs);
        memoryWithPageOpen(admin, cluster, calls, memorySeconds);
        for (Thread t : callers) {
          t.interrupt();
        }
      }
    }
  }

  private static List<Thread> startCallers(Proxy echo, LongAdder calls, long forMillis) {
    long end = System.currentTimeMillis() + forMillis;
    byte[] payload = new byte[64];
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      Thread t =
          new Thread(
              () -> {
                while (!Thread.currentThread().isInterrupted()
                    && System.currentTimeMillis() < end) {
                  try {
                    echo.invoke("echo", payload);
                    calls.increment();
                  } catch (RuntimeException duringAKill) {
                    // Counted as nothing: the figure is successful calls per second.
                  }
                }
              },
              "caller-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    return threads;
  }

  private static void statusJsonCost(
      TetherAdmin admin, LongAdder calls, int phaseSeconds, int pairs) throws Exception {
    // One keep-alive socket and one thread, as a lean scraper would poll: the figure is the page's
    // cost, not an HTTP client library's.
    KeepAliveGetter getter =
        new KeepAliveGetter(admin.address(), System.getProperty("figures.path", "/status.json"));
    ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
    LongAdder answered = new LongAdder();
    phase(2); // warm-up
    double off = 0;
    double on = 0;
    System.out.println("phase            calls/s   answered/s");
    for (int p = 0; p < pairs; p++) {
      // ABBA order: a load that drifts (JIT, other processes) biases neither phase.
      boolean polledFirst = p % 2 == 1;
      double polled = 0;
      if (polledFirst) {
        polled = polledPhase(poller, getter, answered, calls, phaseSeconds);
      }
      double quiet = rate(calls, phaseSeconds);
      System.out.printf(Locale.ROOT, "no polling    %,10.0f%n", quiet);
      if (!polledFirst) {
        polled = polledPhase(poller, getter, answered, calls, phaseSeconds);
      }
      off += quiet;
      on += polled;
    }
    poller.shutdownNow();
    getter.close();
    System.out.printf(
        Locale.ROOT,
        "mean: %,.0f calls/s without, %,.0f with polling: %.1f%% cost%n",
        off / pairs,
        on / pairs,
        100 * (1 - on / off));
  }

  private static double polledPhase(
      ScheduledExecutorService poller,
      KeepAliveGetter getter,
      LongAdder answered,
      LongAdder calls,
      int phaseSeconds)
      throws InterruptedException {
    long before = answered.sum();
    ScheduledFuture<?> polling =
        poller.scheduleAtFixedRate(
            () -> {
              if (getter.get() > 0) {
                answered.increment();
              }
            },
            0,
            10,
            TimeUnit.MILLISECONDS);
    long cpuBefore = adminCpuNanos();
    double polled = rate(calls, phaseSeconds);
    polling.cancel(false);
    double cpuMillisPerSecond = (adminCpuNanos() - cpuBefore) / 1e6 / phaseSeconds;
    System.out.printf(
        Locale.ROOT,
        "100 req/s     %,10.0f   %.0f   admin threads %.1f ms CPU/s%n",
        polled,
        (answered.sum() - before) / (double) phaseSeconds,
        cpuMillisPerSecond);
    return polled;
  }

  /** CPU time of the admin's own threads (HTTP loop and worker), whatever the machine's load. */
  private static long adminCpuNanos() {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t != null && t.getThreadName().startsWith("tether-admin")) {
        sum += Math.max(0, threads.getThreadCpuTime(t.getThreadId()));
      }
    }
    return sum;
  }

  /**
   * GETs one path over one HTTP/1.1 keep-alive connection; returns the status code, -1 on failure.
   */
  private static final class KeepAliveGetter implements AutoCloseable {
    private final java.net.Socket socket = new java.net.Socket();
    private final java.io.DataInputStream in;
    private final java.io.OutputStream out;
    private final byte[] request;

    KeepAliveGetter(java.net.InetSocketAddress address, String path) throws java.io.IOException {
      socket.connect(address, 5000);
      socket.setSoTimeout(5000);
      in = new java.io.DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
      out = socket.getOutputStream();
      request =
          ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
              .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    int get() {
      try {
        out.write(request);
        String status = line();
        int length = 0;
        for (String h; !(h = line()).isEmpty(); ) {
          if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
            length = Integer.parseInt(h.substring(15).trim());
          }
        }
        in.skipNBytes(length);
        return Integer.parseInt(status.split(" ")[1]);
      } catch (java.io.IOException | RuntimeException e) {
        return -1;
      }
    }

    private String line() throws java.io.IOException {
      StringBuilder b = new StringBuilder();
      for (int c; (c = in.read()) != '\n'; ) {
        if (c < 0) {
          throw new java.io.EOFException();
        }
        if (c != '\r') {
          b.append((char) c);
        }
      }
      return b.toString();
    }

    @Override
    public void close() throws java.io.IOException {
      socket.close();
    }
  }

  private static double rate(LongAdder calls, int seconds) {
    long before = calls.sum();
    phase(seconds);

    return (calls.sum() - before) / (double) seconds;
  }

  /**
   * Lets a phase of the run last {@code seconds}: the time is what is measured, not a wait for some
   * condition, so it is the end of a delayed future that is awaited.
   */
  private static void phase(int seconds) {
    CompletableFuture.runAsync(
            () -> {}, CompletableFuture.delayedExecutor(seconds, TimeUnit.SECONDS))
        .join();
  }

  private static void memoryWithPageOpen(
      TetherAdmin admin, InProcessCluster cluster, LongAdder calls, int seconds) throws Exception {
    ChromeDriver browser;
    try {
      browser = HeadlessChromium.startOrSkip();
    } catch (org.opentest4j.TestAbortedException noBrowser) {
      System.out.println("no Chromium: memory figure skipped");
      return;
    }
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    try {
      browser.get(admin.url());
      System.out.println(
          "second  calls/s  JVM heap after GC (MB)  page JS heap (MB)  open streams");
      long start = System.currentTimeMillis();
      boolean shotTaken = false;
      for (int tick = 0; (System.currentTimeMillis() - start) < seconds * 1000L; tick++) {
        // A node killed and brought back every 10 s keeps events flowing into the ring and the
        // page.
        if (tick % 2 == 0) {
          cluster.kill(2);
        } else {
          cluster.restart(2);
        }
        double r = rate(calls, 5);
        if (tick % 2 == 0 && System.currentTimeMillis() - start >= 60_000 && !shotTaken) {
          // A full minute of chart and node 2 dead for 5 s: the picture the README shows.
          java.nio.file.Files.createDirectories(java.nio.file.Path.of("target"));
          java.nio.file.Files.copy(
              browser.getScreenshotAs(org.openqa.selenium.OutputType.FILE).toPath(),
              java.nio.file.Path.of("target", "status-page-busy.png"),
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          shotTaken = true;
        }
        if (tick % 2 == 1) {
          System.gc();
          Object js = browser.executeScript("return performance.memory.usedJSHeapSize;");
          System.out.printf(
              Locale.ROOT,
              "%6d  %,7.0f  %22.1f  %17.1f  %d%n",
              (System.currentTimeMillis() - start) / 1000,
              r,
              memory.getHeapMemoryUsage().getUsed() / 1e6,
              ((Number) js).doubleValue() / 1e6,
              admin.openStreams());
        }
      }
    } finally {
      browser.quit();
    }
  }
}
