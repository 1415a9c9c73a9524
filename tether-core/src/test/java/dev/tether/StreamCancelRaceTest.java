package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Subscribers that cancel while their opening is on its way, over real loopback: each cancel
 * reaches the stream it raced, however late the answer comes (interceptors on the opening or not),
 * so once the cancels settle the server runs no stream and every service that started was
 * cancelled.
 */
class StreamCancelRaceTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final int OPENINGS = 2_000;

  private final List<NumberedItems> opened = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private Tether tether;

  @AfterEach
  void stop() throws Exception {
    Closing.all(tether, server);
  }

  @Test
  void cancelsRacingTwoThousandOpeningsLeaveNoServerStream() {
    raceCancelsWithOpenings(TetherServer.builder());
  }

  @Test
  void cancelsRacingOpeningsWhileTheirInterceptorsRunLeaveNoServerStream() {
    raceCancelsWithOpenings(TetherServer.builder().interceptor(call -> {}));
  }

  private void raceCancelsWithOpenings(TetherServer.Builder b) {
    server =
        b.endpoints("tcp -h 127.0.0.1 -p 0")
            .streamService("feed", NumberedItems.counting(opened))
            .build()
            .start();
    tether = Tether.create();
    Proxy feed = tether.proxy(server.proxyString("feed"));
    byte[] endless = "-1".getBytes(StandardCharsets.US_ASCII);

    // Each subscriber is cancelled as the next one opens: some before their opening left, some
    // while it is on its way or screened, some after it was answered.
    CollectingSubscriber previous = null;
    for (int i = 0; i < OPENINGS; i++) {
      CollectingSubscriber subscriber = new CollectingSubscriber(4);
      feed.stream("watch", endless).subscribe(subscriber);
      if (previous != null) {
        previous.cancel();
      }
      previous = subscriber;
    }
    previous.cancel();

    await().atMost(PATIENCE).until(() -> server.status().streams() == 0);
    await()
        .atMost(PATIENCE)
        .until(() -> opened.stream().allMatch(service -> service.cancels() == 1));
    assertThat(opened.size()).isLessThanOrEqualTo(OPENINGS);
    assertThat(server.status().detachedStreams()).isZero();
  }
}
