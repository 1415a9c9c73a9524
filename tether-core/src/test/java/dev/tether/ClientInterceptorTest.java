package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client interceptor and the server's call observer, seen on real loopback calls. */
class ClientInterceptorTest {
  private final List<String> seen = new CopyOnWriteArrayList<>();

  /** The metadata each server saw, by the port it listens on. */
  private final Map<Integer, Map<String, String>> metadataByPort = new ConcurrentHashMap<>();

  private TetherServer server;
  private Tether tether;

  @BeforeEach
  void start() {
    server = echoServer(TetherServer.builder());
  }

  @AfterEach
  void stop() {
    if (tether != null) {
      tether.close();
    }
    server.close();
  }

  private TetherServer echoServer(TetherServer.Builder b) {
    TetherServer[] self = new TetherServer[1];
    self[0] =
        b.endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  metadataByPort.put(self[0].endpoints().get(0).port(), Map.copyOf(ctx.metadata()));
                  if (op.equals("fail")) {
                    throw new IllegalStateException("boom");
                  }
                  return payload;
                })
            .build()
            .start();
    return self[0];
  }

  /** Records every hook as a line, and adds a header naming the attempt to each request. */
  private final ClientInterceptor recording =
      call -> {
        seen.add(
            "start "
                + call.service()
                + "/"
                + call.operation()
                + " idempotent="
                + call.isIdempotent());
        return new ClientInterceptor.Listener() {
          @Override
          public void onAttempt(ClientInterceptor.AttemptStart a) {
            int port = ((InetSocketAddress) a.serverAddress()).getPort();
            seen.add("attempt " + a.number() + " reason=" + a.reason() + " port=" + port);
            a.putMetadata("x-attempt", String.valueOf(a.number()));
          }

          @Override
          public void onEnd(Throwable failure) {
            seen.add("end " + (failure == null ? "ok" : failure.getClass().getSimpleName()));
          }
        };
      };

  @Test
  void interceptorSeesStartAttemptAndEndOfAPlainCall() {
    tether = Tether.builder().clientInterceptor(recording).build();
    Proxy p = tether.proxy(server.proxyString("svc")).withMetadata("tenant", "a");

    assertThat(p.invoke("echo", new byte[] {1})).containsExactly(1);

    int port = server.endpoints().get(0).port();
    await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 3);
    assertThat(seen)
        .containsExactly(
            "start svc/echo idempotent=false", "attempt 1 reason=null port=" + port, "end ok");
    assertThat(metadataByPort.get(port))
        .containsExactlyInAnyOrderEntriesOf(Map.of("tenant", "a", "x-attempt", "1"));
  }

  @Test
  void retriedCallIsOneCallWithAnAttemptPerServerAndTheRetryReason() {
    TetherServer refusing = RefusingServer.start();
    try {
      tether = Tether.builder().clientInterceptor(recording).build();
      Proxy p =
          tether
              .proxy("svc:" + refusing.endpoints().get(0) + ":" + server.endpoints().get(0))
              .withEndpointSelection(EndpointSelection.ORDERED);

      assertThat(p.invoke("echo", new byte[] {2})).containsExactly(2);

      await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 4);
      assertThat(seen)
          .containsExactly(
              "start svc/echo idempotent=false",
              "attempt 1 reason=null port=" + refusing.endpoints().get(0).port(),
              "attempt 2 reason=REFUSED port=" + server.endpoints().get(0).port(),
              "end ok");
      assertThat(metadataByPort.get(server.endpoints().get(0).port()))
          .containsEntry("x-attempt", "2");
    } finally {
      refusing.close();
    }
  }

  @Test
  void hedgedCallIsOneCallWhoseHedgeSaysItIsAHedge() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    TetherServer slow =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  release.await();
                  return payload;
                })
            .build()
            .start();
    try {
      tether = Tether.builder().clientInterceptor(recording).build();
      Proxy p =
          tether
              .proxy("svc:" + slow.endpoints().get(0) + ":" + server.endpoints().get(0))
              .withEndpointSelection(EndpointSelection.ORDERED)
              .withHedging(Duration.ofMillis(50), 2);
      // Connected first, the call is on the slow server when it starts, so the hedge goes
      // elsewhere.
      p.connectAsync().get(5, java.util.concurrent.TimeUnit.SECONDS);

      assertThat(
              p.invokeAsync("echo", new byte[] {5}, Idempotency.IDEMPOTENT)
                  .get(5, java.util.concurrent.TimeUnit.SECONDS))
          .containsExactly(5);

      await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 4);
      assertThat(seen)
          .containsExactly(
              "start svc/echo idempotent=true",
              "attempt 1 reason=null port=" + slow.endpoints().get(0).port(),
              "attempt 2 reason=HEDGE port=" + server.endpoints().get(0).port(),
              "end ok");
    } finally {
      release.countDown();
      slow.close();
    }
  }

  @Test
  void failedCallEndsWithTheExceptionTheCallerSees() {
    tether = Tether.builder().clientInterceptor(recording).build();
    Proxy p = tether.proxy(server.proxyString("svc"));

    assertThatThrownBy(() -> p.invoke("fail", new byte[0])).isInstanceOf(RemoteException.class);

    await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 3);
    assertThat(seen.get(2)).isEqualTo("end RemoteException");
  }

  @Test
  void withoutAnInterceptorTheServerSeesOnlyTheProxysMetadata() {
    tether = Tether.create();
    Proxy p = tether.proxy(server.proxyString("svc")).withMetadata("tenant", "a");

    p.invoke("echo", new byte[] {1});

    assertThat(metadataByPort.get(server.endpoints().get(0).port()))
        .containsExactly(Map.entry("tenant", "a"));
  }

  @Test
  void headersCannotBeAddedAfterTheAttemptLeft() {
    List<ClientInterceptor.AttemptStart> kept = new CopyOnWriteArrayList<>();
    tether =
        Tether.builder()
            .clientInterceptor(
                call ->
                    new ClientInterceptor.Listener() {
                      @Override
                      public void onAttempt(ClientInterceptor.AttemptStart a) {
                        kept.add(a);
                      }
                    })
            .build();
    tether.proxy(server.proxyString("svc")).invoke("echo", new byte[] {1});

    assertThatThrownBy(() -> kept.get(0).putMetadata("late", "x"))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aThrowingInterceptorLeavesTheCallUnchanged() {
    tether =
        Tether.builder()
            .clientInterceptor(
                call -> {
                  throw new IllegalStateException("broken tracer");
                })
            .build();

    assertThat(tether.proxy(server.proxyString("svc")).invoke("echo", new byte[] {3}))
        .containsExactly(3);
  }

  @Test
  void secondClientInterceptorIsRefusedByTheBuilder() {
    Tether.Builder b = Tether.builder().clientInterceptor(recording);
    assertThatThrownBy(() -> b.clientInterceptor(recording))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already has a client interceptor");
  }

  @Test
  void secondCallObserverIsRefusedByTheBuilder() {
    TetherServer.Builder b = TetherServer.builder().callObserver(call -> null);
    assertThatThrownBy(() -> b.callObserver(call -> null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already has a call observer");
  }

  @Test
  void callObserverSeesEachExecutionWithItsStatusAndFailure() {
    List<String> executions = new CopyOnWriteArrayList<>();
    TetherServer observed =
        echoServer(
            TetherServer.builder()
                .callObserver(
                    call -> {
                      executions.add(
                          "run "
                              + call.service()
                              + "/"
                              + call.operation()
                              + " tenant="
                              + call.metadata().get("tenant"));
                      return (status, failure) ->
                          executions.add(
                              "end "
                                  + status
                                  + " "
                                  + (failure == null ? "-" : failure.getMessage()));
                    }));
    try {
      tether = Tether.create();
      Proxy p = tether.proxy(observed.proxyString("svc")).withMetadata("tenant", "b");
      p.invoke("echo", "x".getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> p.invoke("fail", new byte[0])).isInstanceOf(RemoteException.class);

      assertThat(executions)
          .containsExactly(
              "run svc/echo tenant=b",
              "end OK -",
              "run svc/fail tenant=b",
              "end REMOTE_ERROR boom");
    } finally {
      observed.close();
    }
  }

  @Test
  void callObserverScopeIsOpenWhileTheServiceRunsAndClosedAfter() {
    ThreadLocal<String> current = new ThreadLocal<>();
    List<String> seenByService = new CopyOnWriteArrayList<>();
    List<String> afterwards = new CopyOnWriteArrayList<>();
    TetherServer observed =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  seenByService.add(String.valueOf(current.get()));
                  return payload;
                })
            .callObserver(
                call ->
                    new ServerCallObserver.Execution() {
                      @Override
                      public ServerCallObserver.Scope enter() {
                        current.set("execution of " + call.operation());
                        return () -> {
                          current.remove();
                          afterwards.add(String.valueOf(current.get()));
                        };
                      }

                      @Override
                      public void onEnd(String status, Throwable failure) {}
                    })
            .build()
            .start();
    try {
      tether = Tether.create();
      tether.proxy(observed.proxyString("svc")).invoke("echo", new byte[] {1});

      assertThat(seenByService).containsExactly("execution of echo");
      await().atMost(Duration.ofSeconds(5)).until(() -> afterwards.size() == 1);
      assertThat(afterwards).containsExactly("null");
    } finally {
      observed.close();
    }
  }
}
