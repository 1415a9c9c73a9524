package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stream is opened like a call, over loopback: the client's interceptor watches the opening and
 * its metadata travels with it; the server's interceptors see it before the service does and may
 * refuse it; the server's call observer watches the opening as an execution.
 */
class StreamInterceptorsTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private final List<NumberedItems> opened = new CopyOnWriteArrayList<>();
  private final List<String> serverSaw = new CopyOnWriteArrayList<>();
  private final List<String> clientSaw = new CopyOnWriteArrayList<>();
  private final List<String> observed = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private Tether tether;

  /**
   * A feed guarded by an interceptor that lets through only openings carrying {@code ticket: ok}.
   */
  private Proxy feed(ClientInterceptor clientInterceptor) {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .interceptor(
                call -> {
                  serverSaw.add(
                      call.service()
                          + "."
                          + call.operation()
                          + " on "
                          + Thread.currentThread().getName());
                  if (!"ok".equals(call.metadata().get("ticket"))) {
                    throw new PermissionDeniedException("no ticket");
                  }
                })
            .callObserver(
                call -> {
                  observed.add("start " + call.service() + "." + call.operation());
                  return (status, failure) ->
                      observed.add(
                          "end " + status + (failure == null ? "" : " " + failure.getMessage()));
                })
            .streamService("feed", NumberedItems.counting(opened))
            .build()
            .start();
    Tether.Builder b = Tether.builder();
    if (clientInterceptor != null) {
      b.clientInterceptor(clientInterceptor);
    }
    tether = b.build();
    return tether.proxy(server.proxyString("feed"));
  }

  @AfterEach
  void stop() throws Exception {
    Closing.all(tether, server);
  }

  @Test
  void serverInterceptorRefusesAStreamOpeningAndTheServiceNeverOpens() {
    Proxy feed = feed(null);
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    feed.stream("count", "10".getBytes(StandardCharsets.US_ASCII)).subscribe(subscriber);

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(PermissionDeniedException.class)
        .hasMessageContaining("no ticket");
    assertThat(serverSaw)
        .hasSize(1)
        .allSatisfy(seen -> assertThat(seen).startsWith("feed.count on "));
    assertThat(serverSaw.get(0))
        .doesNotContain("loop"); // where the service would run, not on the event loop
    assertThat(opened).isEmpty();
    assertThat(subscriber.items()).isEmpty();
    assertThat(observed).containsExactly("start feed.count", "end PERMISSION_DENIED no ticket");
  }

  @Test
  void clientInterceptorWatchesTheOpeningAndItsMetadataReachesTheServersInterceptor()
      throws Exception {
    Proxy feed =
        feed(
            call -> {
              clientSaw.add("start " + call.service() + "." + call.operation());
              return new ClientInterceptor.Listener() {
                @Override
                public void onAttempt(ClientInterceptor.AttemptStart attempt) {
                  clientSaw.add("attempt " + attempt.number());
                  attempt.putMetadata("ticket", "ok");
                }

                @Override
                public void onEnd(Throwable failure) {
                  clientSaw.add("end " + failure);
                }
              };
            });
    CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

    feed.stream("count", "100".getBytes(StandardCharsets.US_ASCII)).subscribe(subscriber);

    subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(subscriber.numbers())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 100).boxed().toList());
    assertThat(clientSaw).containsExactly("start feed.count", "attempt 1", "end null");
    assertThat(serverSaw).hasSize(1);
    assertThat(opened).hasSize(1);
    assertThat(observed)
        .as("the call observer watched the opening")
        .containsExactly("start feed.count", "end OK");
  }
}
