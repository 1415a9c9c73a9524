package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherException;
import dev.tether.observe.TetherEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Tether.close()} keeps its word over real loopback sockets: every call still waiting (for a
 * ready node or connection, for a dial, on a connection) ends within {@code tether.close.grace}
 * with an exception that says the runtime closed, and no thread stays blocked in {@code invoke()}.
 */
class CloseEndsWaitsTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private Tether tether(String grace) {
    Tether t = Tether.builder().property("tether.close.grace", grace).listener(events::add).build();
    closeables.add(t);
    return t;
  }

  private static String endpoint(int port) {
    return "tcp -h 127.0.0.1 -p " + port;
  }

  private long failedDials() {
    return events.stream().filter(e -> e.kind() == TetherEvent.Kind.CONNECT_FAILED).count();
  }

  @Test
  void closeEndsWaitForReadyCallsWithinTheGrace() throws Exception {
    int a = ConnectionEstablishmentTest.deadPort();
    int b = ConnectionEstablishmentTest.deadPort();
    Tether t = tether("2s");
    Proxy pinned = t.proxy("svc:" + endpoint(a)).withWaitForReady(true);
    Proxy group =
        t.proxy("svc:" + endpoint(a) + ":" + endpoint(b))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN)
            .withWaitForReady(true);
    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    calls.add(pinned.invokeAsync("get", new byte[0]));
    calls.add(pinned.withInvocationTimeout(Duration.ofSeconds(5)).invokeAsync("get", new byte[0]));
    calls.add(group.invokeAsync("get", new byte[0]));
    calls.add(group.withInvocationTimeout(Duration.ofSeconds(5)).invokeAsync("get", new byte[0]));
    CompletableFuture<Throwable> blocked = new CompletableFuture<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                group.invoke("get", new byte[0]);
                blocked.complete(null);
              } catch (Throwable e) {
                blocked.complete(e);
              }
            },
            "blocked-in-invoke");
    caller.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> failedDials() >= 2);
    assertThat(calls).noneMatch(CompletableFuture::isDone);
    assertThat(blocked).isNotDone();

    long start = System.nanoTime();
    t.close();

    for (CompletableFuture<byte[]> call : calls) {
      assertThatThrownBy(() -> call.get(4, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(TetherException.class)
          .hasMessageContaining("closed");
    }
    assertThat(blocked.get(4, TimeUnit.SECONDS))
        .isInstanceOf(TetherException.class)
        .hasMessageContaining("closed");
    caller.join(1000);
    assertThat(caller.isAlive()).isFalse();
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2_000 + 1_000);
  }
}
