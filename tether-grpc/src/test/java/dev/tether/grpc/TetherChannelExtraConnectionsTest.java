package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Tether;
import dev.tether.observe.TetherEvent;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Extra connections when a gRPC server's SETTINGS_MAX_CONCURRENT_STREAMS is reached (gRFC A105,
 * which grpc-java's own channel does not implement: it queues the calls behind the limit).
 */
@Timeout(60)
class TetherChannelExtraConnectionsTest {
  @Test
  void
      eightCallsHeldAtOnceAgainstAServerAllowingTwoStreamsPerConnectionAllRunAtOnceAndTheExtrasCloseWhenIdle()
          throws Exception {
    CountingService service = new CountingService("a");
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service.definition())
            .maxConcurrentCallsPerConnection(2)
            .build()
            .start();
    List<TetherEvent> events = new CopyOnWriteArrayList<>();
    Tether tether =
        Tether.builder()
            .property("tether.connection.extraIdleClose", "300ms")
            .listener(events::add)
            .build();
    ManagedChannel channel =
        TetherGrpc.channel(tether.proxy("gather:tcp -h 127.0.0.1 -p " + server.getPort()));
    try {
      CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
      List<com.google.common.util.concurrent.ListenableFuture<byte[]>> calls = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        calls.add(
            ClientCalls.futureUnaryCall(
                channel.newCall(CountingService.GATHER, options), text("x")));
      }

      // Each call answers only once all eight run at once on the server.
      for (var call : calls) {
        assertThat(text(call.get(20, TimeUnit.SECONDS))).isEqualTo("a");
      }
      // Counted from the events, not from the status: under load the extras may already have
      // been idle for their 300 ms by the time the last answer is read.
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(events.stream().filter(e -> e.kind() == TetherEvent.Kind.CONNECTED))
                      .as(events.toString())
                      .hasSizeGreaterThanOrEqualTo(4));

      // Once idle, the extras close; the key's own connection stays.
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(20))
          .until(() -> tether.status().connections().size() == 1);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      tether.close();
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
