package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The futures a call hands its caller keep the outcome the call decided: none can be obtruded. */
class CallFutureTest {
  public interface Greeter {
    CompletableFuture<String> greet(String name);

    @Idempotent
    CompletableFuture<String> greetAgain(String name);
  }

  static final class GreeterImpl implements Greeter {
    @Override
    public CompletableFuture<String> greet(String name) {
      return CompletableFuture.completedFuture("hello " + name);
    }

    @Override
    public CompletableFuture<String> greetAgain(String name) {
      return greet(name);
    }
  }

  private TetherServer server;
  private Tether tether;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("raw", (operation, payload, context) -> payload)
            .service("greeter", Greeter.class, new GreeterImpl())
            .build()
            .start();
    tether = Tether.create();
  }

  @AfterEach
  void stop() {
    tether.close();
    server.close();
  }

  private static void refusesObtrusion(CompletableFuture<?> future) throws Exception {
    future.get(10, TimeUnit.SECONDS);
    Object outcome = future.getNow(null);
    for (Consumer<CompletableFuture<?>> obtrude :
        java.util.List.<Consumer<CompletableFuture<?>>>of(
            f -> f.obtrudeValue(null),
            f -> f.obtrudeException(new IllegalStateException("replaced")))) {
      assertThatThrownBy(() -> obtrude.accept(future))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessage("a Tether call's outcome is set only by the call itself");
    }
    assertThat(future.getNow(null)).as("the outcome stays the call's").isEqualTo(outcome);
  }

  @Test
  void anUntypedCallsFutureRefusesObtrusion() throws Exception {
    refusesObtrusion(tether.proxy(server.proxyString("raw")).invokeAsync("echo", new byte[] {1}));
  }

  @Test
  void aHedgedCallsFutureRefusesObtrusion() throws Exception {
    Proxy hedged = tether.proxy(server.proxyString("raw")).withHedging(Duration.ofSeconds(5), 2);
    refusesObtrusion(hedged.invokeAsync("echo", new byte[] {1}, Idempotency.IDEMPOTENT));
  }

  @Test
  void aTypedCallsFutureRefusesObtrusion() throws Exception {
    refusesObtrusion(tether.proxy(server.proxyString("greeter")).as(Greeter.class).greet("ann"));
  }

  @Test
  void aTypedHedgedCallsFutureRefusesObtrusion() throws Exception {
    Greeter hedged =
        tether
            .proxy(server.proxyString("greeter"))
            .withHedging(Duration.ofSeconds(5), 2)
            .as(Greeter.class);
    refusesObtrusion(hedged.greetAgain("bob"));
  }
}
