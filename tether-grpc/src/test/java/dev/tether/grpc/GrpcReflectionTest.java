package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code reflection()}: what grpcurl asks first, through grpc-java's generated stubs. */
@Timeout(60)
class GrpcReflectionTest {
  private TetherGrpcServerFixture grpc;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server().service(new InteropService().definition()).health().reflection());
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
  }

  /** One request on a reflection stream, and its answer. */
  private ServerReflectionResponse ask(ServerReflectionRequest request) throws Exception {
    BlockingQueue<ServerReflectionResponse> answers = new LinkedBlockingQueue<>();
    StreamObserver<ServerReflectionRequest> requests =
        ServerReflectionGrpc.newStub(channel)
            .withDeadlineAfter(20, TimeUnit.SECONDS)
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ServerReflectionResponse value) {
                    answers.add(value);
                  }

                  @Override
                  public void onError(Throwable t) {}

                  @Override
                  public void onCompleted() {}
                });
    requests.onNext(request);
    ServerReflectionResponse answer = answers.poll(10, TimeUnit.SECONDS);
    requests.onCompleted();
    return answer;
  }

  @Test
  void listsTheHostedProtobufServicesAsGrpcurlListDoes() throws Exception {
    ServerReflectionResponse answer =
        ask(ServerReflectionRequest.newBuilder().setListServices("").build());

    List<String> names =
        answer.getListServicesResponse().getServiceList().stream()
            .map(ServiceResponse::getName)
            .toList();
    assertThat(names)
        .containsExactlyInAnyOrder(
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection");
    // As with grpc-java's own server: a service built without protobuf descriptors (the test's
    // hand-built interop service) has nothing to describe, and is not listed.
    assertThat(names).doesNotContain(InteropService.SERVICE);
  }

  @Test
  void describesAProtobufServiceByItsSymbolAsGrpcurlDescribeDoes() throws Exception {
    ServerReflectionResponse answer =
        ask(
            ServerReflectionRequest.newBuilder()
                .setFileContainingSymbol("grpc.health.v1.Health")
                .build());

    assertThat(answer.getFileDescriptorResponse().getFileDescriptorProtoCount()).isPositive();
  }
}
