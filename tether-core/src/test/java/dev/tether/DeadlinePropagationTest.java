package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A deadline set by the first caller travels down a chain of services, so every hop gives up
 * together.
 */
class DeadlinePropagationTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  /**
   * Long enough that a loaded machine still gets the request to A and A's call to B inside it (at
   * 200 ms, A's queue wait alone sometimes spent it, and A then rightly never ran).
   */
  private static final Duration DEADLINE = Duration.ofSeconds(1);

  private final CountDownLatch releaseB = new CountDownLatch(1);

  @AfterEach
  void stop() throws Exception {
    releaseB.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    closeables.add(c);
    return c;
  }

  @Test
  void twoHopChainEndsBothHopsByTheFirstCallersDeadline() {
    AtomicReference<Duration> seenByB = new AtomicReference<>();
    TetherServer b =
        closeLater(
            TetherServer.builder()
                .endpoints("tcp -h 127.0.0.1 -p 0")
                .service(
                    "b",
                    (op, payload, ctx) -> {
                      seenByB.set(ctx.timeRemaining());
                      releaseB.await(30, TimeUnit.SECONDS);
                      return payload;
                    })
                .build()
                .start());
    Tether inner = closeLater(Tether.create());
    Proxy toB = inner.proxy(b.proxyString("b"));
    AtomicReference<Throwable> innerFailure = new AtomicReference<>();
    AtomicReference<Duration> seenByA = new AtomicReference<>();
    TetherServer a =
        closeLater(
            TetherServer.builder()
                .endpoints("tcp -h 127.0.0.1 -p 0")
                .service(
                    "a",
                    (op, payload, ctx) -> {
                      seenByA.set(ctx.timeRemaining());
                      try {
                        return toB.invoke(
                            "work", payload); // no timeout of its own: it inherits the caller's
                      } catch (RuntimeException e) {
                        innerFailure.set(e);
                        throw e;
                      }
                    })
                .build()
                .start());
    Tether client = closeLater(Tether.create());
    Proxy toA = client.proxy(a.proxyString("a")).withInvocationTimeout(DEADLINE);
    // Connections open and code loaded first, so the deadline is the chain's alone; toA's own
    // ping would spend them on the connect, which on a loaded machine can take longer.
    toB.ping();
    client.proxy(a.proxyString("a")).ping();

    // Whichever hop's clock strikes first: the client's own timeout, or A failing with its inner
    // timeout.
    assertThatThrownBy(() -> toA.invoke("work", new byte[0]))
        .isInstanceOfAny(InvocationTimeoutException.class, RemoteException.class)
        .satisfies(
            e -> {
              if (e instanceof RemoteException) {
                assertThat(e.getMessage()).contains("InvocationTimeoutException");
              }
            });

    await().atMost(Duration.ofSeconds(5)).until(() -> innerFailure.get() != null);
    assertThat(releaseB.getCount())
        .as("B was never released: the inner call gave up on its own")
        .isEqualTo(1);
    assertThat(innerFailure.get())
        .isInstanceOf(InvocationTimeoutException.class)
        .hasMessageContaining("deadline it inherited");
    assertThat(seenByA.get()).isPositive().isLessThanOrEqualTo(DEADLINE);
    assertThat(seenByB.get()).isPositive().isLessThanOrEqualTo(seenByA.get());
  }

  @Test
  void callOutsideAnyServiceHasNoDeadlineUnlessItSetsOne() {
    AtomicReference<Duration> seen = new AtomicReference<>(Duration.ZERO);
    TetherServer s =
        closeLater(
            TetherServer.builder()
                .endpoints("tcp -h 127.0.0.1 -p 0")
                .service(
                    "s",
                    (op, payload, ctx) -> {
                      seen.set(ctx.timeRemaining());
                      return payload;
                    })
                .build()
                .start());
    Tether t = closeLater(Tether.create());
    t.proxy(s.proxyString("s")).invoke("work", new byte[0]);
    assertThat(seen.get()).isNull();
  }
}
