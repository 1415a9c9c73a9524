package dev.tether.chaos.netns;

import dev.tether.StreamLostException;
import dev.tether.Tether;
import dev.tether.chaos.ChaosFeed;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.NumberedStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * The stream client of the network-namespace tests, run as a child JVM inside the client's
 * namespace. {@code NetnsStreamMain <host:port endpoint> <items>} reads one stream of {@link
 * ChaosFeed} and prints, times on {@code System.nanoTime()} as {@link NetnsClientMain} does:
 *
 * <pre>
 * ITEM &lt;number&gt; &lt;nanos&gt;
 * EVENT &lt;nanos&gt; &lt;KIND&gt; &lt;endpoint&gt;
 * END OK &lt;items&gt;  |  END &lt;exception&gt; &lt;delivered&gt;
 * </pre>
 *
 * Client settings come as {@code -Dtether.*} system properties. It gives up after two minutes.
 */
public final class NetnsStreamMain {
  private NetnsStreamMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: NetnsStreamMain <endpoint> <items>");
      System.exit(2);
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    CompletableFuture<String> end = new CompletableFuture<>();
    try (Tether tether =
        Tether.builder()
            .properties(System.getProperties())
            .listener(
                e -> {
                  if (e.kind() == TetherEvent.Kind.HEARTBEAT_TIMEOUT
                      || e.kind() == TetherEvent.Kind.STREAM_RESUMED
                      || e.kind() == TetherEvent.Kind.STREAM_LOST
                      || e.kind() == TetherEvent.Kind.CONNECTED) {
                    out.println("EVENT " + e.nanos() + " " + e.kind() + " " + e.endpoint());
                  }
                })
            .build()) {
      tether.proxy(ChaosFeed.NAME + ":" + args[0]).stream(
              "s0", args[1].getBytes(StandardCharsets.US_ASCII))
          .subscribe(
              new Flow.Subscriber<byte[]>() {
                private long items;

                @Override
                public void onSubscribe(Flow.Subscription s) {
                  s.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(byte[] item) {
                  items++;
                  out.println("ITEM " + NumberedStream.number(item) + " " + System.nanoTime());
                }

                @Override
                public void onError(Throwable t) {
                  end.complete(
                      t.getClass().getSimpleName()
                          + " "
                          + (t instanceof StreamLostException lost ? lost.delivered() : items));
                }

                @Override
                public void onComplete() {
                  end.complete("OK " + items);
                }
              });
      out.println("END " + end.get(2, TimeUnit.MINUTES));
    }
  }
}
