package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server stream item larger than the client's {@code tether.client.maxFrameSize}, over real
 * loopback: it is never written, its stream fails naming both sizes, and the connection with its
 * other calls and streams goes on (no protocol error, no reconnect).
 */
class OversizedStreamItemTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);
  private static final int CLIENT_MAX_FRAME = 64 * 1024;

  private TetherServer server;
  private Tether tether;

  @AfterEach
  void stop() throws Exception {
    Closing.all(tether, server);
  }

  @Test
  void anItemOverTheClientsFrameLimitFailsOnlyItsStreamNamingBothSizes() throws Exception {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (op, payload, ctx) -> payload)
            .streamService(
                "sized",
                (op, request, inbound, ctx) ->
                    new NumberedItems(
                        3, n -> new byte[n == 2 ? CLIENT_MAX_FRAME + 1 : CLIENT_MAX_FRAME / 2]))
            .streamService("feed", NumberedItems.counting(null))
            .build()
            .start();
    tether =
        Tether.builder()
            .property("tether.client.maxFrameSize", String.valueOf(CLIENT_MAX_FRAME))
            .build();
    Proxy sized = tether.proxy(server.proxyString("sized"));
    CollectingSubscriber beside = new CollectingSubscriber(Long.MAX_VALUE);
    tether.proxy(server.proxyString("feed")).stream(
            "count", "1000".getBytes(StandardCharsets.US_ASCII))
        .subscribe(beside);
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    sized.stream("big", new byte[0]).subscribe(subscriber);

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            RemoteException.class,
            e -> {
              assertThat(e.remoteType()).isEqualTo(RequestTooLargeException.class.getName());
              assertThat(e.getMessage())
                  .contains(
                      "stream item 2 of 65537 bytes is a frame of 65544 bytes, over the 65536"
                          + " bytes the peer accepts");
            });
    assertThat(subscriber.items()).hasSize(1);
    beside.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(beside.items()).hasSize(1000);
    byte[] hello = "still here".getBytes(StandardCharsets.US_ASCII);
    assertThat(tether.proxy(server.proxyString("echo")).invoke("echo", hello)).isEqualTo(hello);
    assertThat(server.status().connections()).isEqualTo(1);
  }
}
