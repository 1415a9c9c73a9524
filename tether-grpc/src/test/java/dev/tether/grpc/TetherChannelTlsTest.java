package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tether.ClientAuth;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.TestCertificates;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tether's gRPC channel over the ssl transport: the runtime's own client TLS (its trust, its
 * hostname check) with ALPN "h2", against grpc-java's TLS server and a Tether server serving gRPC
 * under TLS; a server the client does not trust or that speaks no HTTP/2 fails the call clearly and
 * is dialled once, not in a storm.
 */
@Timeout(60)
class TetherChannelTlsTest {
  private final TestCertificates certificates = TestCertificates.create();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private Server grpcServer;
  private TetherServer tetherServer;
  private Tether tether;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (tether != null) {
      tether.close();
    }
    if (grpcServer != null) {
      grpcServer.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (tetherServer != null) {
      tetherServer.close();
    }
  }

  private int grpcJavaServerWithTls() throws IOException {
    grpcServer =
        NettyServerBuilder.forAddress(
                new InetSocketAddress("127.0.0.1", 0),
                TlsServerCredentials.create(
                    certificates.server().certificateChain().toFile(),
                    certificates.server().privateKey().toFile()))
            .addService(new InteropService().definition())
            .build()
            .start();
    return grpcServer.getPort();
  }

  private ManagedChannel channelTo(String endpoint, dev.tether.TlsConfig tls) {
    tether =
        Tether.builder()
            .tls(tls)
            // A backoff far longer than the test: a second dial within it would be a storm.
            .property("tether.reconnect.policy", "fixed")
            .property("tether.reconnect.initial", "60s")
            .listener(events::add)
            .build();
    channel = TetherGrpc.channel(tether.proxy("interop:" + endpoint));
    return channel;
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private long count(TetherEvent.Kind kind) {
    return events.stream().filter(e -> e.kind() == kind).count();
  }

  @Test
  void aCallOverTlsReachesAGrpcJavaServerThatAgreedOnH2() throws IOException {
    int port = grpcJavaServerWithTls();
    channelTo("ssl -h 127.0.0.1 -p " + port, certificates.trustingClient());

    byte[] answer =
        ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, options(), text("secret"));

    assertThat(text(answer)).isEqualTo("secret");
  }

  @Test
  void aServerCertificateTheClientDoesNotTrustFailsTheCallUnavailableAndLaterCallsDoNotRedial()
      throws IOException {
    int port = grpcJavaServerWithTls();
    channelTo("ssl -h 127.0.0.1 -p " + port, certificates.clientTrustingAnotherCa());

    StatusRuntimeException first = failedCall();
    long dialsOfTheFirstCall = count(TetherEvent.Kind.CONNECTING);
    List<StatusRuntimeException> later = List.of(failedCall(), failedCall(), failedCall());

    assertThat(first.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(first.getStatus().getDescription())
        .contains("TLS handshake with 127.0.0.1:" + port + " failed", "certification path");
    // The key's one backoff holds every later call: none dials again, each says why.
    assertThat(later)
        .allSatisfy(
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).contains("TLS handshake");
            });
    assertThat(count(TetherEvent.Kind.CONNECTING))
        .as(events.toString())
        .isEqualTo(dialsOfTheFirstCall);
    assertThat(count(TetherEvent.Kind.CONNECTED)).as(events.toString()).isZero();
  }

  private StatusRuntimeException failedCall() {
    return catchThrowableOfType(
        StatusRuntimeException.class,
        () -> ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, options(), text("x")));
  }

  @Test
  void aServerThatDoesNotAgreeOnH2FailsTheCallSayingSo() {
    tetherServer =
        TetherServer.builder()
            .endpoints("ssl -h 127.0.0.1 -p 0")
            .tls(certificates.serverConfig(ClientAuth.NONE))
            .service("echo", (operation, payload, ctx) -> payload)
            .build()
            .start();
    channelTo(tetherServer.endpoints().get(0).toString(), certificates.trustingClient());

    StatusRuntimeException failed =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () ->
                ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, options(), text("x")));

    assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(failed.getStatus().getDescription()).contains("no HTTP/2", "ALPN \"h2\"");
    assertThat(count(TetherEvent.Kind.CONNECTED)).as(events.toString()).isZero();
  }

  @Test
  void aTetherServerServingGrpcUnderTlsAnswersTetherChannelOverTls() {
    tetherServer =
        TetherGrpc.server()
            .service(new InteropService().definition())
            .configure(
                TetherServer.builder()
                    .endpoints("ssl -h 127.0.0.1 -p 0")
                    .tls(certificates.serverConfig(ClientAuth.NONE)))
            .build()
            .start();
    channelTo(tetherServer.endpoints().get(0).toString(), certificates.trustingClient());

    byte[] answer =
        ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, options(), text("both"));

    assertThat(text(answer)).isEqualTo("both");
    assertThat(tetherServer.status().protocol("grpc").served()).isEqualTo(1);
  }
}
