package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CallPathTest {
  private TetherServer server;
  private Tether tether;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "echo",
                (op, payload, ctx) ->
                    switch (op) {
                      case "echo" -> payload;
                      case "fail" ->
                          throw new IllegalStateException(
                              "boom " + new String(payload, StandardCharsets.UTF_8));
                      default -> throw new UnsupportedOperationException(op);
                    })
            .build()
            .start();
    tether = Tether.create();
  }

  @AfterEach
  void stop() {
    tether.close();
    server.close();
  }

  @Test
  void untypedCallReturnsTheServicesBytes() {
    Proxy p = tether.proxy(server.proxyString("echo"));
    assertThat(p.invoke("echo", "hi".getBytes(StandardCharsets.UTF_8))).asString().isEqualTo("hi");
  }

  @Test
  void thousandConcurrentAsyncCallsOnOneConnectionEachGetTheirOwnResult() throws Exception {
    Proxy p = tether.proxy(server.proxyString("echo"));
    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      calls.add(p.invokeAsync("echo", ("call-" + i).getBytes(StandardCharsets.UTF_8)));
    }
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
    for (int i = 0; i < 1000; i++) {
      assertThat(new String(calls.get(i).join(), StandardCharsets.UTF_8)).isEqualTo("call-" + i);
    }
    // The client's own view: the server's count would also show a stranger that dials its port
    // (another test's runtime redialling a port this server took over), and a status snapshot
    // leaves out a connection whose loop is too busy to answer it in time.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(tether.status().connections())
                    .singleElement()
                    .satisfies(
                        c -> assertThat(c.callsOk()).as("calls it carried").isEqualTo(1000)));
  }

  @Test
  void remoteErrorCarriesTheRemoteTypeAndMessage() {
    Proxy p = tether.proxy(server.proxyString("echo"));
    assertThatThrownBy(() -> p.invoke("fail", "x".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(
            RemoteException.class,
            e -> {
              assertThat(e.remoteType()).isEqualTo(IllegalStateException.class.getName());
              assertThat(e.remoteMessage()).isEqualTo("boom x");
            });
  }

  @Test
  void unknownServiceRaisesServiceNotFound() {
    Proxy p = tether.proxy(server.proxyString("nope"));
    assertThatThrownBy(() -> p.invoke("echo", new byte[0]))
        .isInstanceOf(ServiceNotFoundException.class);
  }

  @Test
  void pingReachesTheServiceWithoutRunningIt() {
    tether.proxy(server.proxyString("echo")).ping();
    assertThatThrownBy(() -> tether.proxy(server.proxyString("nope")).ping())
        .isInstanceOf(ServiceNotFoundException.class);
  }
}
