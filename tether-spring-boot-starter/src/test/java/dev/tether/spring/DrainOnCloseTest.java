package dev.tether.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Tether;
import dev.tether.TetherException;
import dev.tether.TetherServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

class DrainOnCloseTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  @Test
  void aCallInFlightWhenTheContextClosesCompletesAndNewCallsAreRefused() throws Exception {
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(GateApplication.class)
            .web(WebApplicationType.NONE)
            .properties(
                "tether.server.endpoints=tcp -h 127.0.0.1 -p 0",
                "spring.lifecycle.timeout-per-shutdown-phase=15s",
                "spring.main.banner-mode=off")
            .run();
    ExecutorService callers = Executors.newFixedThreadPool(2);
    try (Tether client = Tether.create()) {
      assertThat(context.getBean(TetherServerLifecycle.class).grace())
          .isEqualTo(Duration.ofSeconds(15));
      TetherServer server = context.getBean(TetherServer.class);
      GateBean gate = context.getBean(GateBean.class);
      Gate remote = client.proxy(server.proxyString("gate")).as(Gate.class);

      CompletableFuture<String> inFlight =
          CompletableFuture.supplyAsync(() -> remote.pass("early"), callers);
      assertThat(gate.entered.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close, callers);
      await().atMost(PATIENCE).until(() -> server.status().state(), "DRAINING"::equals);

      assertThatThrownBy(() -> remote.pass("late")).isInstanceOf(TetherException.class);
      assertThat(closing).isNotDone();

      gate.open.countDown();
      assertThat(inFlight.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isEqualTo("through early");
      closing.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertThat(context.isActive()).isFalse();
      assertThat(server.status().state()).isEqualTo("CLOSED");
    } finally {
      callers.shutdownNow();
      context.close();
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class GateApplication {
    @Bean
    GateBean gate() {
      return new GateBean();
    }
  }

  /** Lets calls through only once the test opens it; counts the first one in. */
  @TetherService("gate")
  static class GateBean implements Gate {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);

    @Override
    public String pass(String who) {
      entered.countDown();
      try {
        if (!open.await(30, TimeUnit.SECONDS)) {
          return "timed out " + who;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted " + who;
      }
      return "through " + who;
    }
  }
}
