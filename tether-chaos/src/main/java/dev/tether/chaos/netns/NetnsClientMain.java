package dev.tether.chaos.netns;

import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.chaos.ChaosService;
import dev.tether.chaos.Outcome;
import dev.tether.observe.TetherEvent;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The client of the network-namespace tests, run as a child JVM inside the client's namespace.
 * {@code NetnsClientMain <proxy> <idempotent|non-idempotent> <threads> <interval-ms> <seconds>}
 * makes calls from {@code threads} threads, one every {@code interval-ms} each, for {@code
 * seconds}, and prints one line per call and per connection event, times on {@code
 * System.nanoTime()} (CLOCK_MONOTONIC, shared by every process of the machine, so the parent can
 * compare them with the moments it changed the network):
 *
 * <pre>
 * CALL &lt;id&gt; &lt;startNanos&gt; &lt;endNanos&gt; &lt;OUTCOME&gt; &lt;exception or -&gt;
 * EVENT &lt;nanos&gt; &lt;KIND&gt; &lt;endpoint&gt;
 * DONE &lt;calls&gt;
 * </pre>
 *
 * Client settings come as {@code -Dtether.*} system properties, the invocation timeout as {@code
 * -Dnetns.timeoutMillis} (5000); ids start at {@code -Dnetns.firstId} (0), so that the runs of one
 * server's life do not share ids. It stops early when its standard input closes.
 */
public final class NetnsClientMain {
  private NetnsClientMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println(
          "usage: NetnsClientMain <proxy> <idempotent|non-idempotent> <threads> <interval-ms> <seconds>");
      System.exit(2);
    }
    Idempotency idempotency =
        args[1].equals("idempotent") ? Idempotency.IDEMPOTENT : Idempotency.NOT_IDEMPOTENT;
    int threads = Integer.parseInt(args[2]);
    long intervalNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
    long endNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[4]));
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    AtomicInteger ids = new AtomicInteger(Integer.getInteger("netns.firstId", 0));
    AtomicBoolean stop = new AtomicBoolean();
    Thread stdin =
        new Thread(
            () -> {
              try {
                while (System.in.read() >= 0) {
                  // Nothing to read: the parent closes stdin to stop this client.
                }
              } catch (java.io.IOException e) {
                // Treated as closed.
              }
              stop.set(true);
            },
            "netns-stdin");
    stdin.setDaemon(true);
    stdin.start();
    try (Tether tether =
        Tether.builder()
            .properties(System.getProperties())
            .listener(
                e -> {
                  if (e.kind() == TetherEvent.Kind.HEARTBEAT_TIMEOUT
                      || e.kind() == TetherEvent.Kind.CONNECTION_CLOSED
                      || e.kind() == TetherEvent.Kind.CONNECTED
                      || e.kind() == TetherEvent.Kind.CONNECT_FAILED
                      || e.kind() == TetherEvent.Kind.RETRY) {
                    out.println("EVENT " + e.nanos() + " " + e.kind() + " " + e.endpoint());
                  }
                })
            .build()) {
      Proxy proxy =
          tether
              .proxy(args[0])
              .withInvocationTimeout(Duration.ofMillis(Long.getLong("netns.timeoutMillis", 5000)));
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread w =
            new Thread(
                () -> {
                  for (long next = System.nanoTime();
                      next - endNanos < 0 && !stop.get();
                      next += intervalNanos) {
                    // Pacing of the load, not a wait for a result.
                    LockSupport.parkNanos(next - System.nanoTime());
                    int id = ids.getAndIncrement();
                    long start = System.nanoTime();
                    Throwable failure = null;
                    try {
                      proxy.invoke(
                          ChaosService.OPERATION, ChaosService.payload(id, 0), idempotency);
                    } catch (RuntimeException e) {
                      failure = e;
                    }
                    long end = System.nanoTime();
                    out.println(
                        "CALL "
                            + id
                            + " "
                            + start
                            + " "
                            + end
                            + " "
                            + (failure == null ? Outcome.OK : Outcome.of(failure)).name()
                            + " "
                            + (failure == null ? "-" : failure.getClass().getSimpleName()));
                    next = Math.max(next, end - intervalNanos);
                  }
                },
                "netns-caller-" + t);
        workers.add(w);
        w.start();
      }
      for (Thread w : workers) {
        w.join();
      }
    }
    out.println("DONE " + (ids.get() - Integer.getInteger("netns.firstId", 0)));
  }
}
