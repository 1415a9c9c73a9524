package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.EndpointSelection;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tether.trace.retry} as a user reads it: the lines of the {@code dev.tether.trace.retry}
 * logger. slf4j-simple (the test binding) writes to whatever {@code System.err} is at the time of
 * the call, so the test reads those lines by swapping the stream for the length of one test.
 */
class RetryTraceTest {
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
  private PrintStream originalErr;
  private TetherServer server;
  private Tether tether;

  @BeforeEach
  void captureStandardError() {
    originalErr = System.err;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("svc", (op, payload, ctx) -> payload)
            .build()
            .start();
  }

  @AfterEach
  void restore() {
    if (tether != null) {
      tether.close();
    }
    server.close();
    System.setErr(originalErr);
  }

  private List<String> traceLines() {
    return captured
        .toString(StandardCharsets.UTF_8)
        .lines()
        .filter(l -> l.contains("dev.tether.trace.retry"))
        .toList();
  }

  private Proxy deadThenLive(String traceLevel) throws IOException {
    tether = Tether.builder().property("tether.trace.retry", traceLevel).build();
    return tether
        .proxy(
            "svc:tcp -h 127.0.0.1 -p "
                + ConnectionEstablishmentTest.deadPort()
                + ":"
                + server.endpoints().get(0))
        .withEndpointSelection(EndpointSelection.ORDERED);
  }

  @Test
  void traceRetryTwoLogsEveryConnectAttemptWithItsReason() throws IOException {
    Proxy p = deadThenLive("2");
    p.invoke("echo", new byte[] {1});

    await().atMost(Duration.ofSeconds(5)).until(() -> traceLines().size() >= 2);
    List<String> lines = traceLines();
    assertThat(lines.get(0))
        .contains("connect to")
        .contains("failed")
        .contains("Connection refused");
    assertThat(lines)
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains("connected to")
                    .contains(String.valueOf(server.endpoints().get(0).port())));
  }

  @Test
  void traceRetryTwoLogsEachRetryOfAnInvocationWithItsReason() {
    TetherServer full = dev.tether.RefusingServer.start();
    try {
      tether = Tether.builder().property("tether.trace.retry", "2").build();
      Proxy p =
          tether
              .proxy("svc:" + full.endpoints().get(0) + ":" + server.endpoints().get(0))
              .withEndpointSelection(EndpointSelection.ORDERED);
      p.invoke("echo", new byte[] {1});

      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> traceLines().stream().anyMatch(l -> l.contains("retrying")));
      assertThat(traceLines())
          .anySatisfy(l -> assertThat(l).contains("retrying echo of svc (retry 1) after REFUSED"));
    } finally {
      full.close();
    }
  }

  @Test
  void traceRetryZeroLogsNothing() throws IOException {
    Proxy p = deadThenLive("0");
    p.invoke("echo", new byte[] {1});
    // The same call at level 2 logs its failed attempt before it returns; at 0 nothing may be
    // there.
    assertThat(traceLines()).isEmpty();
  }
}
