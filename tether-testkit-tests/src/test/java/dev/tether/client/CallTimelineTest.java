package dev.tether.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.CallPhase;
import dev.tether.InvocationTimeoutException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.testkit.FakeClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An invocation timeout says where the call's time went, phase by phase, on real loopback sockets
 * and the injected clock: a call stuck connecting to a server that accepts but never answers HELLO,
 * and one waiting for the reply of a service that never answers.
 */
class CallTimelineTest {
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  private final FakeClock clock = new FakeClock();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch entered = new CountDownLatch(1);

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private Tether client() {
    Tether t =
        Tether.builder()
            .ticker(clock)
            .scheduler(clock)
            .property("tether.retry.intervals", "-1")
            .property("tether.heartbeat.readerIdle", "0")
            .property("tether.heartbeat.idleTimeout", "0")
            .build();
    closeables.add(t);
    return t;
  }

  private int silentServer() throws IOException {
    SilentServer server = new SilentServer();
    closeables.add(server);
    return server.port();
  }

  /** "ping" answers at once; "hang" never answers while the test runs. */
  private TetherServer hangingServer() {
    TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  if (op.equals("hang")) {
                    entered.countDown();
                    release.await(30, TimeUnit.SECONDS);
                  }
                  return payload;
                })
            .build()
            .start();
    closeables.add(server);
    return server;
  }

  private static InvocationTimeoutException timeoutOf(CompletableFuture<byte[]> call)
      throws Exception {
    try {
      call.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(InvocationTimeoutException.class);
      return (InvocationTimeoutException) e.getCause();
    }
    throw new AssertionError("the call succeeded");
  }

  private void forwardToTheDeadline(CompletableFuture<byte[]> call) {
    await().atMost(Duration.ofSeconds(10)).until(() -> clock.pendingDelays().contains(TIMEOUT));
    clock.forward(TIMEOUT.minusMillis(1));
    assertThat(call).isNotDone();
    clock.forward(Duration.ofMillis(1));
  }

  @Test
  void timelineOfACallStuckConnectingNamesTheEndpointAndTheUnansweredHello() throws Exception {
    int port = silentServer();
    String endpoint = "tcp -h 127.0.0.1 -p " + port;
    Proxy proxy = client().proxy("svc:" + endpoint).withInvocationTimeout(TIMEOUT);

    CompletableFuture<byte[]> call = proxy.invokeAsync("op", new byte[0]);
    // The handshake's own deadline (10 s) is armed once the transport connected and HELLO left.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> clock.pendingDelays().contains(Duration.ofSeconds(10)));
    forwardToTheDeadline(call);

    InvocationTimeoutException timeout = timeoutOf(call);
    assertThat(timeout.timeline())
        .containsExactly(new CallPhase(CallPhase.Kind.CONNECTING, endpoint, TIMEOUT));
    assertThat(timeout.getMessage())
        .isEqualTo(
            "op got no answer within 300 ms: CONNECTING "
                + endpoint
                + " 300 ms (HELLO not answered)");
  }

  @Test
  void timelineOfACallWaitingForItsReplyIsAwaitingReplyOnItsConnection() throws Exception {
    TetherServer server = hangingServer();
    String endpoint = server.endpoints().get(0).toString();
    Proxy proxy = client().proxy(server.proxyString("svc")).withInvocationTimeout(TIMEOUT);
    assertThat(new String(proxy.invoke("ping", "x".getBytes(UTF_8)), UTF_8)).isEqualTo("x");

    CompletableFuture<byte[]> call = proxy.invokeAsync("hang", new byte[0]);
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    forwardToTheDeadline(call);

    InvocationTimeoutException timeout = timeoutOf(call);
    assertThat(timeout.timeline())
        .containsExactly(new CallPhase(CallPhase.Kind.AWAITING_REPLY, endpoint, TIMEOUT));
    assertThat(timeout.getMessage())
        .isEqualTo("hang got no answer within 300 ms: AWAITING_REPLY " + endpoint + " 300 ms");
  }

  @Test
  void timelineOfAFirstCallListsItsConnectingThenItsWaitForTheReply() throws Exception {
    TetherServer server = hangingServer();
    String endpoint = server.endpoints().get(0).toString();
    Proxy proxy = client().proxy(server.proxyString("svc")).withInvocationTimeout(TIMEOUT);

    CompletableFuture<byte[]> call = proxy.invokeAsync("hang", new byte[0]);
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    forwardToTheDeadline(call);

    // The fake clock stood still while the real connect ran, so connecting took no time on it.
    assertThat(timeoutOf(call).timeline())
        .containsExactly(
            new CallPhase(CallPhase.Kind.CONNECTING, null, Duration.ZERO),
            new CallPhase(CallPhase.Kind.AWAITING_REPLY, endpoint, TIMEOUT));
  }
}
