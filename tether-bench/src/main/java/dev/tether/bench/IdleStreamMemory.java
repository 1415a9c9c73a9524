package dev.tether.bench;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Memory one open idle stream costs, on the client and on the server, like {@link
 * IdleConnectionMemory} does for connections: the server runs in a JVM of its own; the client opens
 * N server streams on one connection whose service never sends (its publisher takes the demand and
 * holds it), each with a subscriber that asked for everything, so each stream holds its credit, its
 * resume state and its context, and no thread. Both sides report heap used after a full GC and
 * direct memory at 0, N/2 and N streams; printed per stream: the growth over N and the slope
 * between N/2 and N.
 *
 * <p>Usage: {@code IdleStreamMemory [streams]} (default 10000); opens in waves, each bounded.
 */
public final class IdleStreamMemory {
  private static final int DEFAULT_STREAMS = 10_000;
  private static final int WAVE = 500;
  private static final long WAVE_TIMEOUT_SECONDS = 60;
  private static final String SERVICE = "idle-streams";

  private final AtomicInteger opened = new AtomicInteger();
  private final List<IdleSubscriber> subscribers = new ArrayList<>();

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals(MemoryServerProcess.SERVER_FLAG)) {
      serve();
      return;
    }
    new IdleStreamMemory().run(args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_STREAMS);
    System.exit(
        0); // the runtime's and the server reader's threads are done; do not wait for stragglers
  }

  private void run(int streams) throws Exception {
    try (MemoryServerProcess server = MemoryServerProcess.start(IdleStreamMemory.class);
        Tether tether = Tether.builder().listener(this::onEvent).build()) {
      Proxy proxy = tether.proxy(SERVICE + ":tcp -h 127.0.0.1 -p " + server.port);
      proxy.connectAsync().get(WAVE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      ProcessMemory[] client = new ProcessMemory[3];
      ProcessMemory[] serverMemory = new ProcessMemory[3];
      client[0] = ProcessMemory.measure();
      serverMemory[0] = server.measure();
      open(proxy, streams / 2);
      server.awaitCount(streams / 2);
      client[1] = ProcessMemory.measure();
      serverMemory[1] = server.measure();
      open(proxy, streams);
      server.awaitCount(streams);
      client[2] = ProcessMemory.measure();
      serverMemory[2] = server.measure();
      long failed = subscribers.stream().filter(s -> s.failure != null).count();
      System.out.printf(
          Locale.ROOT,
          "idle streams on one connection: %d (client saw %d open, server %d; %d failed; %d connection)%n",
          streams,
          opened.get(),
          server.count(),
          failed,
          tether.status().connections().size());
      ProcessMemory.report(System.out, "client", "stream", client, streams);
      ProcessMemory.report(System.out, "server", "stream", serverMemory, streams);
    }
  }

  private void onEvent(TetherEvent event) {
    if (event.kind() == TetherEvent.Kind.STREAM_OPENED) {
      opened.incrementAndGet();
    }
  }

  /** Opens streams in waves until {@code upTo} are open, each wave bounded in time. */
  private void open(Proxy proxy, int upTo) throws InterruptedException, IOException {
    while (subscribers.size() < upTo) {
      int target = Math.min(upTo, subscribers.size() + WAVE);
      while (subscribers.size() < target) {
        IdleSubscriber subscriber = new IdleSubscriber();
        subscribers.add(subscriber);
        proxy.stream("wait", new byte[0]).subscribe(subscriber);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAVE_TIMEOUT_SECONDS);
      while (opened.get() < target) {
        if (System.nanoTime() > deadline) {
          throw new IOException(opened.get() + " of " + target + " streams opened");
        }
        Thread.sleep(20); // a benchmark's polling, not a test's wait
      }
    }
  }

  /** The server process: a stream service that never sends, counting the streams it opened. */
  private static void serve() throws IOException {
    AtomicInteger open = new AtomicInteger();
    try (TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .streamService(
                SERVICE,
                (operation, request, inbound, ctx) -> {
                  open.incrementAndGet();
                  return subscriber ->
                      subscriber.onSubscribe(
                          new Flow.Subscription() {
                            @Override
                            public void request(long n) {
                              // idle: the demand is held, nothing is sent
                            }

                            @Override
                            public void cancel() {
                              open.decrementAndGet();
                            }
                          });
                })
            .build()
            .start()) {
      MemoryServerProcess.serve(server.endpoints().get(0).port(), open::get);
    }
    System.exit(0);
  }

  /** Asks for everything and waits; keeps a failure to report. */
  private static final class IdleSubscriber implements Flow.Subscriber<byte[]> {
    private volatile Throwable failure;

    @Override
    public void onSubscribe(Flow.Subscription s) {
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(byte[] item) {}

    @Override
    public void onError(Throwable cause) {
      failure = cause;
    }

    @Override
    public void onComplete() {}
  }
}
