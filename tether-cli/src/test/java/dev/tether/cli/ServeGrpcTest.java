package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Int64Value;
import com.google.protobuf.StringValue;
import dev.tether.Tether;
import dev.tether.cli.kv.GrpcDemo;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code tether serve --grpc}: grpc-java's own client (its Netty shaded) calls what the command
 * hosts, at the address its printed grpcurl line names, beside a Tether client on the same port.
 */
@Timeout(120)
class ServeGrpcTest {
  private static final Pattern GRPCURL_LIST =
      Pattern.compile("grpcurl -plaintext (127\\.0\\.0\\.1):(\\d+) list");

  private BackgroundServe serve;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    serve = new BackgroundServe("--endpoints", "tcp -h 127.0.0.1 -p 0", "--grpc");
    await().atMost(Duration.ofSeconds(30)).until(serve::isServing);
    Matcher m = GRPCURL_LIST.matcher(serve.out());
    assertThat(m.find()).as(serve.out()).isTrue();
    channel =
        ManagedChannelBuilder.forAddress(m.group(1), Integer.parseInt(m.group(2)))
            .usePlaintext()
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    if (!serve.exitCode().isDone()) {
      serve.stop();
    }
    assertThat(serve.exitCode().get(30, TimeUnit.SECONDS)).isZero();
  }

  private static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  @Test
  void aGrpcJavaClientCallsTheDemoEchoAndCountOnThePortServePrintedAndTheyAreCounted()
      throws Exception {
    StringValue echoed =
        ClientCalls.blockingUnaryCall(channel, GrpcDemo.ECHO, options(), StringValue.of("hello"));
    List<Long> counted = new ArrayList<>();
    ClientCalls.blockingServerStreamingCall(channel, GrpcDemo.COUNT, options(), Int64Value.of(5))
        .forEachRemaining(v -> counted.add(v.getValue()));

    assertThat(echoed.getValue()).isEqualTo("hello");
    assertThat(counted).containsExactly(1L, 2L, 3L, 4L, 5L);
    serve.stop();
    assertThat(serve.exitCode().get(30, TimeUnit.SECONDS)).isZero();
    // gRPC calls count in the demo's tally like Tether's.
    assertThat(serve.out()).contains("stopped after serving 1 call(s)");
  }

  @Test
  void aGrpcJavaClientAndATetherClientAreServedOnTheSamePortAndHealthSaysServing() {
    String echoProxy =
        serve
            .out()
            .lines()
            .map(String::trim)
            .filter(l -> l.startsWith("echo:tcp"))
            .findFirst()
            .orElseThrow();
    byte[] reply;
    try (Tether tether = Tether.create()) {
      reply = tether.proxy(echoProxy).invoke("echo", "ping".getBytes(StandardCharsets.UTF_8));
    }

    assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo("ping");
    assertThat(
            HealthGrpc.newBlockingStub(channel)
                .withDeadlineAfter(20, TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance())
                .getStatus())
        .isEqualTo(ServingStatus.SERVING);
    assertThat(serve.out()).contains("HealthGrpc.newBlockingStub(channel)");
  }

  @Test
  void theTetherCallLineServePrintedStreamsTheCountOverGrpc() {
    Matcher line =
        Pattern.compile("printf '\\\\x08\\\\x05' \\| \\./tether call (.+) @-").matcher(serve.out());
    assertThat(line.find()).as(serve.out()).isTrue();
    List<String> args = new ArrayList<>(List.of("call"));
    args.addAll(List.of(line.group(1).split(" ")));
    args.add("@-");

    CliRun run = CliRun.run(withStdin(new byte[] {0x08, 0x05}), args.toArray(String[]::new));

    assertThat(run.exitCode()).as(run.err()).isZero();
    // Int64Value 1 to 5: field 1, varint.
    assertThat(run.out().lines()).containsExactly("0801", "0802", "0803", "0804", "0805");
  }

  private static CommandLine.IFactory withStdin(byte[] bytes) {
    return new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> type) throws Exception {
        K made = CommandLine.defaultFactory().create(type);
        if (made instanceof CallCommand call) {
          call.stdin = new ByteArrayInputStream(bytes);
        }
        return made;
      }
    };
  }

  @Test
  void reflectionListsWhatServeHostsAndDescribesTheDemoForGrpcurl() throws Exception {
    ServerReflectionResponse listed =
        ask(ServerReflectionRequest.newBuilder().setListServices("").build());
    ServerReflectionResponse described =
        ask(ServerReflectionRequest.newBuilder().setFileContainingSymbol(GrpcDemo.SERVICE).build());

    assertThat(listed.getListServicesResponse().getServiceList())
        .extracting(ServiceResponse::getName)
        .contains(GrpcDemo.SERVICE, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection");
    // The demo's file and the wrappers it imports, so grpcurl can encode the requests.
    assertThat(described.getFileDescriptorResponse().getFileDescriptorProtoCount())
        .isGreaterThanOrEqualTo(1);
    assertThat(described.getFileDescriptorResponse().getFileDescriptorProto(0).toStringUtf8())
        .contains("tether/demo/echo.proto");
  }

  private ServerReflectionResponse ask(ServerReflectionRequest request) throws Exception {
    CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests =
        ServerReflectionGrpc.newStub(channel)
            .withDeadlineAfter(20, TimeUnit.SECONDS)
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ServerReflectionResponse value) {
                    answer.complete(value);
                  }

                  @Override
                  public void onError(Throwable t) {
                    answer.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    requests.onNext(request);
    ServerReflectionResponse response = answer.get(20, TimeUnit.SECONDS);
    requests.onCompleted();
    return response;
  }
}
