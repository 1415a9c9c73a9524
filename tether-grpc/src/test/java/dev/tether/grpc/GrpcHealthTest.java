package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.TetherServer;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code health()}: grpc.health.v1 following the server, for its gRPC services and its own Tether
 * services alike, through grpc-java's generated stubs.
 */
@Timeout(60)
class GrpcHealthTest {
  private TetherGrpcServerFixture grpc;
  private TetherServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server().service(new InteropService().definition()).health(),
            TetherServer.builder()
                .service("echo", (operation, payload, ctx) -> payload)
                .streamService("ticks", (operation, request, inbound, ctx) -> inbound));
    server = grpc.server();
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
  }

  private HealthGrpc.HealthBlockingStub stub() {
    return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private static HealthCheckRequest of(String service) {
    return HealthCheckRequest.newBuilder().setService(service).build();
  }

  @Test
  void answersServingForTheServerAndEachServiceAndNotFoundForOtherNames() {
    assertThat(stub().check(of("")).getStatus()).isEqualTo(ServingStatus.SERVING);
    assertThat(stub().check(of(InteropService.SERVICE)).getStatus())
        .isEqualTo(ServingStatus.SERVING);
    assertThatThrownBy(() -> stub().check(of("tether.testing.Nobody")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
  }

  @Test
  void turnsNotServingAsSoonAsAGracefulShutdownBegins() throws Exception {
    Iterator<HealthCheckResponse> watch = stub().watch(of(""));
    assertThat(watch.next().getStatus()).isEqualTo(ServingStatus.SERVING);

    CompletableFuture<Void> shutdown =
        CompletableFuture.runAsync(() -> server.shutdownGracefully(Duration.ofSeconds(30)));

    // The watch is a call in flight: the drain waits for it, and it hears the change first.
    assertThat(watch.next().getStatus()).isEqualTo(ServingStatus.NOT_SERVING);
    channel.shutdownNow();
    shutdown.get(20, TimeUnit.SECONDS);
  }

  @Test
  void theServersTetherServicesAreServingByIdentityUntilTheDrainBegins() throws Exception {
    assertThat(stub().check(of("echo")).getStatus()).isEqualTo(ServingStatus.SERVING);
    assertThat(stub().check(of("ticks")).getStatus()).isEqualTo(ServingStatus.SERVING);
    Iterator<HealthCheckResponse> watch = stub().watch(of("echo"));
    assertThat(watch.next().getStatus()).isEqualTo(ServingStatus.SERVING);

    CompletableFuture<Void> shutdown =
        CompletableFuture.runAsync(() -> server.shutdownGracefully(Duration.ofSeconds(30)));

    assertThat(watch.next().getStatus()).isEqualTo(ServingStatus.NOT_SERVING);
    channel.shutdownNow();
    shutdown.get(20, TimeUnit.SECONDS);
  }
}
