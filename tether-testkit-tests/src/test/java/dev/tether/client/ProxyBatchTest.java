package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.BatchLostException;
import dev.tether.Connection;
import dev.tether.ConnectionState;
import dev.tether.ExecutionMode;
import dev.tether.InvocationMode;
import dev.tether.Proxy;
import dev.tether.RequestTooLargeException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Batch-oneway requests are queued by their proxy (as in Ice), against real servers: a flush sends
 * its own proxy's requests only, a closed connection loses none, and whatever a flush cannot send
 * is reported with how many were lost.
 */
class ProxyBatchTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** What the service received, in arrival order (DIRECT: it runs on the connection's loop). */
  private final List<String> received = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private TetherServer server(int maxFrameSize) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .executionMode(ExecutionMode.DIRECT)
            .maxFrameSize(maxFrameSize)
            .service(
                "svc",
                (op, payload, ctx) -> {
                  if (op.equals("record")) {
                    received.add(
                        payload.length > 32
                            ? "big:" + payload.length
                            : new String(payload, StandardCharsets.UTF_8));
                  }
                  return new byte[0];
                })
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  private TetherServer server() {
    return server(1 << 20);
  }

  private Tether tether() {
    Tether t = Tether.create();
    closeables.add(t);
    return t;
  }

  private static void queue(Proxy batch, String... texts) {
    for (String t : texts) {
      batch.invoke("record", t.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void flushOfOneProxySendsOnlyTheRequestsThatProxyQueued() {
    TetherServer s = server();
    Proxy twoway = tether().proxy(s.proxyString("svc"));
    Proxy a = twoway.withMode(InvocationMode.BATCH_ONEWAY);
    Proxy b = twoway.withMode(InvocationMode.BATCH_ONEWAY);
    queue(a, "a1", "a2");
    queue(b, "b1");

    a.flushBatch();
    // A twoway call on the same connection is answered after everything written before it ran.
    twoway.invoke("record", "mark".getBytes(StandardCharsets.UTF_8));
    assertThat(a.connection().id())
        .isEqualTo(b.connection().id())
        .isEqualTo(twoway.connection().id());
    assertThat(received).containsExactly("a1", "a2", "mark");

    b.flushBatch();
    await().atMost(WAIT).until(() -> received.size() == 4);
    assertThat(received).containsExactly("a1", "a2", "mark", "b1");
  }

  @Test
  void requestsQueuedWhenTheirConnectionClosesAreSentByTheNextFlushOnANewConnection() {
    TetherServer s = server();
    FaultProxy fp = FaultProxy.start("127.0.0.1", s.endpoints().get(0).port());
    closeables.add(fp);
    Tether t = tether();
    Proxy batch = t.proxy("svc:" + fp.endpoint()).withMode(InvocationMode.BATCH_ONEWAY);
    Connection first = batch.connection();
    queue(batch, "r1", "r2");

    fp.resetAll();
    await().atMost(WAIT).until(() -> t.connection(first).state() == ConnectionState.CLOSED);
    batch.flushBatch();

    await().atMost(WAIT).until(() -> received.size() == 2);
    assertThat(received).containsExactly("r1", "r2");
    assertThat(fp.acceptedConnections()).isEqualTo(2);
  }

  @Test
  void flushThatCannotReachAServerFailsNamingHowManyRequestsWereLost() {
    TetherServer s = server();
    FaultProxy fp = FaultProxy.start("127.0.0.1", s.endpoints().get(0).port());
    closeables.add(fp);
    Proxy batch = tether().proxy("svc:" + fp.endpoint()).withMode(InvocationMode.BATCH_ONEWAY);
    queue(batch, "x1", "x2", "x3");
    fp.stop();

    assertThatThrownBy(batch::flushBatch)
        .isInstanceOfSatisfying(BatchLostException.class, e -> assertThat(e.lost()).isEqualTo(3))
        .hasMessageContaining("3 of 3 queued batch request(s) were not sent");

    // Lost means gone: a later flush, with the server back, has nothing to send.
    fp.restart();
    batch.flushBatch();
    Proxy twoway = batch.withMode(InvocationMode.TWOWAY);
    // The refused key backs off: calls fail fast until its next attempt reaches the server.
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(() -> twoway.invoke("record", "after".getBytes(StandardCharsets.UTF_8)) != null);
    assertThat(received).containsExactly("after");
  }

  @Test
  void batchLargerThanTheServersMaxFrameIsSplitAndARequestTooLargeForAnyFrameIsReportedLost() {
    TetherServer s = server(64 * 1024);
    Proxy twoway = tether().proxy(s.proxyString("svc"));
    Proxy batch = twoway.withMode(InvocationMode.BATCH_ONEWAY);
    batch.invoke("record", new byte[30_000]);
    batch.invoke("record", new byte[30_000]);
    batch.invoke("record", new byte[100_000]);
    batch.invoke("record", new byte[30_000]);

    assertThatThrownBy(batch::flushBatch)
        .isInstanceOfSatisfying(
            BatchLostException.class,
            e -> {
              assertThat(e.lost()).isEqualTo(1);
              assertThat(e.getCause()).isInstanceOf(RequestTooLargeException.class);
            })
        .hasMessageContaining("1 of 4 queued batch request(s) were not sent");
    twoway.invoke("record", "mark".getBytes(StandardCharsets.UTF_8));
    assertThat(received).containsExactly("big:30000", "big:30000", "big:30000", "mark");
    assertThat(twoway.connection().state()).isEqualTo(ConnectionState.ACTIVE);
  }
}
