package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A name whose answer changes while a proxy lives, with a resolver the test controls and two real
 * servers on the same port of 127.0.0.2 (a, which holds "slow" calls) and 127.0.0.3 (b): a retry
 * resolves the name again and follows the new answer; {@code resetBinding()} makes a healthy pinned
 * proxy resolve again too.
 */
class ReResolutionTest {
  private static final String NAME = "svc.tether.test";

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger slowCallsStarted = new AtomicInteger();

  /** What the name resolves to now. */
  private final AtomicReference<String> answer = new AtomicReference<>("127.0.0.2");

  /** Every answer the resolver gave, in order. */
  private final List<String> answered = new CopyOnWriteArrayList<>();

  private TetherServer a;
  private TetherServer b;
  private Tether tether;

  @BeforeEach
  void start() throws Exception {
    a = server("a", "127.0.0.2", 0);
    b = server("b", "127.0.0.3", a.endpoints().get(0).port());
    tether =
        Tether.builder()
            .resolver(
                host -> {
                  String now = answer.get();
                  answered.add(now);
                  return List.of(InetAddress.getByName(now));
                })
            .build();
    closeables.add(tether);
  }

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private TetherServer server(String name, String host, int port) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h " + host + " -p " + port)
            .service(
                "svc",
                (op, payload, ctx) -> {
                  if (op.equals("slow") && name.equals("a")) {
                    slowCallsStarted.incrementAndGet();
                    release.await(30, TimeUnit.SECONDS);
                  }
                  return name.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  private Proxy proxy() {
    return tether.proxy("svc:tcp -h " + NAME + " -p " + a.endpoints().get(0).port());
  }

  private static String text(byte[] reply) {
    return new String(reply, StandardCharsets.UTF_8);
  }

  @Test
  void retryAfterTheServerWentAwayResolvesTheNameAgainAndFollowsTheNewAnswer() throws Exception {
    Proxy p = proxy();
    CompletableFuture<byte[]> call = p.invokeAsync("slow", new byte[0], Idempotency.IDEMPOTENT);
    await().atMost(Duration.ofSeconds(10)).until(() -> slowCallsStarted.get() == 1);

    answer.set("127.0.0.3");
    a.close(); // the connection drops with the call in flight: an idempotent call is retried

    assertThat(text(call.get(10, TimeUnit.SECONDS))).isEqualTo("b");
    assertThat(answered).first().isEqualTo("127.0.0.2");
    assertThat(answered).last().isEqualTo("127.0.0.3");
    assertThat(tether.status().retries()).isEqualTo(1);
  }

  @Test
  void resetBindingMakesAHealthyPinnedProxyResolveItsNameAgain() {
    Proxy p = proxy();
    assertThat(text(p.invoke("who", new byte[0]))).isEqualTo("a");

    answer.set("127.0.0.3");
    // The cached connection to a is healthy: without a reset the proxy keeps it.
    assertThat(text(p.invoke("who", new byte[0]))).isEqualTo("a");
    p.resetBinding();
    assertThat(text(p.invoke("who", new byte[0]))).isEqualTo("b");
    assertThat(text(p.invoke("who", new byte[0]))).isEqualTo("b");
  }
}
