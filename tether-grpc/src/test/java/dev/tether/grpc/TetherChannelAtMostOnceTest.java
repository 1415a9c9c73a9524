package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ConnectionLostException;
import dev.tether.EndpointSelection;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The at-most-once rule over HTTP/2, against grpc-java's own servers: what proves a call never ran
 * (a refused stream, a stream above a GOAWAY's last id) sends it to the next server whatever its
 * method; a call that may have run moves only when its method is idempotent, else it fails
 * UNAVAILABLE with {@code ConnectionLostException(mayHaveExecuted=true)} as its cause.
 */
@Timeout(90)
class TetherChannelAtMostOnceTest {
  private final GrpcJavaPeers peers = new GrpcJavaPeers();
  private final Tether tether = peers.runtime(Tether.create());

  @AfterEach
  void stop() throws Exception {
    peers.close();
  }

  private Server serve(CountingService service) throws IOException {
    return peers.serve(service.definition());
  }

  private ManagedChannel channel(Proxy proxy) {
    return peers.channel(TetherGrpc.channel(proxy));
  }

  private Proxy proxyTo(int... ports) {
    StringBuilder s = new StringBuilder("counting");
    for (int port : ports) {
      s.append(":tcp -h 127.0.0.1 -p ").append(port);
    }
    return tether.proxy(s.toString());
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private static String call(ManagedChannel c, MethodDescriptor<byte[], byte[]> method) {
    return text(ClientCalls.blockingUnaryCall(c, method, options(), text("x")));
  }

  @Test
  void roundRobinOverTwoGrpcJavaServersSpreadsCalls() throws Exception {
    CountingService a = new CountingService("a");
    CountingService b = new CountingService("b");
    Proxy proxy =
        proxyTo(serve(a).getPort(), serve(b).getPort())
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    ManagedChannel channel = channel(proxy);
    // A fresh group dials both nodes at once; count once both took a call.
    for (int i = 0; i < 200 && (a.calls.get() == 0 || b.calls.get() == 0); i++) {
      call(channel, CountingService.CALL);
    }
    assertThat(a.calls.get()).isPositive();
    assertThat(b.calls.get()).isPositive();
    int aBefore = a.calls.get();
    int bBefore = b.calls.get();

    for (int i = 0; i < 200; i++) {
      call(channel, CountingService.CALL);
    }

    assertThat(a.calls.get() - aBefore).isBetween(90, 110);
    assertThat(b.calls.get() - bBefore).isBetween(90, 110);
  }

  @Test
  void aRefusedStreamRunsOnceOnTheNextServerEvenWhenNotIdempotent() throws Exception {
    RefusingHttp2Server refusing = new RefusingHttp2Server(RefusingHttp2Server.Mode.REFUSED_STREAM);
    peers.other(refusing);
    CountingService b = new CountingService("b");
    ManagedChannel channel =
        channel(
            proxyTo(refusing.port(), serve(b).getPort())
                .withEndpointSelection(EndpointSelection.ORDERED));

    assertThat(call(channel, CountingService.CALL)).isEqualTo("b");

    assertThat(refusing.streams.get()).isPositive();
    assertThat(b.calls.get()).isEqualTo(1);
  }

  @Test
  void aStreamAboveTheGoAwaysLastIdRunsOnceOnTheNextServerEvenWhenNotIdempotent() throws Exception {
    RefusingHttp2Server leaving = new RefusingHttp2Server(RefusingHttp2Server.Mode.GOAWAY);
    peers.other(leaving);
    CountingService b = new CountingService("b");
    ManagedChannel channel =
        channel(
            proxyTo(leaving.port(), serve(b).getPort())
                .withEndpointSelection(EndpointSelection.ORDERED));

    assertThat(call(channel, CountingService.CALL)).isEqualTo("b");

    assertThat(leaving.streams.get()).isPositive();
    assertThat(b.calls.get()).isEqualTo(1);
  }

  @Test
  void aNonIdempotentCallWhoseServerDiesUnderItFailsAndRanOnce() throws Exception {
    CountingService a = new CountingService("a");
    CountingService b = new CountingService("b");
    Server serverA = serve(a);
    ManagedChannel channel =
        channel(
            proxyTo(serverA.getPort(), serve(b).getPort())
                .withEndpointSelection(EndpointSelection.ORDERED));
    var pending =
        ClientCalls.futureUnaryCall(channel.newCall(CountingService.HANG, options()), text("x"));
    assertThat(a.hanging.await(20, TimeUnit.SECONDS)).isTrue();

    serverA.shutdownNow();

    assertThatThrownBy(() -> pending.get(20, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getCause())
                  .isInstanceOfSatisfying(
                      ConnectionLostException.class,
                      lost -> assertThat(lost.mayHaveExecuted()).isTrue());
            });
    assertThat(a.hangs.get() + b.hangs.get()).isEqualTo(1);
  }

  @Test
  void anIdempotentCallWhoseServerDiesUnderItRunsAgainOnTheNextServer() throws Exception {
    CountingService a = new CountingService("a");
    CountingService b = new CountingService("b");
    Server serverA = serve(a);
    ManagedChannel channel =
        channel(
            proxyTo(serverA.getPort(), serve(b).getPort())
                .withEndpointSelection(EndpointSelection.ORDERED));
    CallOptions briefly = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
    var pending =
        ClientCalls.futureUnaryCall(
            channel.newCall(CountingService.IDEMPOTENT_HANG, briefly), text("x"));
    assertThat(a.hanging.await(20, TimeUnit.SECONDS)).isTrue();

    serverA.shutdownNow();

    assertThat(b.hanging.await(20, TimeUnit.SECONDS)).isTrue();
    pending.cancel(true);
    assertThat(a.hangs.get()).isEqualTo(1);
    assertThat(b.hangs.get()).isEqualTo(1);
  }

  @Test
  void aServerKilledUnderLoadFailsNoIdempotentCall() throws Exception {
    CountingService a = new CountingService("a");
    CountingService b = new CountingService("b");
    Server serverA = serve(a);
    ManagedChannel channel =
        channel(
            proxyTo(serverA.getPort(), serve(b).getPort())
                .withLoadBalancing(LoadBalancing.ROUND_ROBIN));
    AtomicInteger done = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    ExecutorService callers = Executors.newFixedThreadPool(8);
    List<Future<?>> loops = new ArrayList<>();
    try {
      for (int t = 0; t < 8; t++) {
        loops.add(
            callers.submit(
                () -> {
                  for (int i = 0; i < 100; i++) {
                    try {
                      call(channel, CountingService.IDEMPOTENT_CALL);
                    } catch (StatusRuntimeException e) {
                      failed.incrementAndGet();
                    }
                    if (done.incrementAndGet() == 200) {
                      serverA.shutdownNow();
                    }
                  }
                }));
      }
      for (Future<?> f : loops) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      callers.shutdownNow();
    }

    assertThat(done.get()).isEqualTo(800);
    assertThat(failed.get()).isZero();
    assertThat(a.calls.get()).isPositive();
    assertThat(a.calls.get() + b.calls.get()).isGreaterThanOrEqualTo(800);
  }
}
