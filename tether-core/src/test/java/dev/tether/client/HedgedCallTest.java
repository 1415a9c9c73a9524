package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.EndpointSelection;
import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.testing.SilentServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where a hedge goes while its sibling has no connection yet: a server that accepts and never
 * answers HELLO keeps the first attempt dialling for longer than the whole call may take, so only a
 * hedge sent to the other endpoint can answer, however slowly the machine opens connections.
 */
@Timeout(60)
class HedgedCallTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final AtomicInteger executions = new AtomicInteger();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private static String endpoint(int port) {
    return "tcp -h 127.0.0.1 -p " + port;
  }

  /** The silent server first in order, an answering one second; handshakes may take 30 s. */
  private Tether.Builder runtime() {
    return Tether.builder().property("tether.override.connectTimeout", "30s");
  }

  private Proxy proxy(Tether tether, int silentPort, String answering) {
    return tether
        .proxy("bank:" + endpoint(silentPort) + ":" + answering)
        .withEndpointSelection(EndpointSelection.ORDERED)
        .withInvocationTimeout(Duration.ofSeconds(10))
        .withHedging(Duration.ofMillis(50), 2);
  }

  private String answeringServer() {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "bank",
                (op, payload, ctx) -> {
                  executions.incrementAndGet();
                  return "ran".getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(0, s);
    return s.endpoints().get(0).toString();
  }

  private int silentServer() throws Exception {
    SilentServer s = new SilentServer();
    closeables.add(s);
    return s.port();
  }

  @Test
  void aHedgeSentWhileTheFirstAttemptIsStillDialingGoesToAnotherEndpoint() throws Exception {
    int silent = silentServer();
    String answering = answeringServer();
    Tether tether = runtime().build();
    closeables.add(tether);

    byte[] reply =
        proxy(tether, silent, answering).invoke("get", new byte[0], Idempotency.IDEMPOTENT);

    assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo("ran");
    assertThat(executions.get()).isEqualTo(1);
    assertThat(tether.status().retries()).isEqualTo(1);
  }

  @Test
  void aHedgeOfACallThatJoinedAConnectionStillConnectingGoesToAnotherEndpoint() throws Exception {
    int silent = silentServer();
    String answering = answeringServer();
    Tether tether = runtime().build();
    closeables.add(tether);
    Proxy p = proxy(tether, silent, answering);
    // The silent server's connection is pooled, still connecting, when the call comes: the call
    // joins it rather than walking the endpoints.
    p.connectAsync();

    byte[] reply = p.invoke("get", new byte[0], Idempotency.IDEMPOTENT);

    assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo("ran");
    assertThat(executions.get()).isEqualTo(1);
    assertThat(tether.status().retries()).isEqualTo(1);
  }
}
