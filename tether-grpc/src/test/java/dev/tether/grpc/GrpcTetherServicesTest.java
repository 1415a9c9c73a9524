package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.spi.Codec;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every Tether service of a server is a gRPC service too, named by its identity, each operation a
 * unary method whose messages are the Tether payload bytes: grpc-java's client calls them with a
 * byte[] marshaller.
 */
@Timeout(60)
class GrpcTetherServicesTest {
  /**
   * A typed Tether service, whose payloads are what the standard codec makes of its arguments: a
   * single argument alone, several as one array, as a Tether stub sends them.
   */
  public interface Greeter {
    String greet(String name, int times);

    CompletableFuture<String> greetLater(String name);
  }

  private static final class Greetings implements Greeter {
    @Override
    public String greet(String name, int times) {
      return ("hello " + name + " ").repeat(times).trim();
    }

    @Override
    public CompletableFuture<String> greetLater(String name) {
      return CompletableFuture.completedFuture("later, " + name);
    }
  }

  private final Codec codec = Tether.standardCodec();
  private TetherGrpcServerFixture grpc;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    grpc =
        TetherGrpcServerFixture.start(
            TetherGrpc.server().service(new InteropService().definition()),
            TetherServer.builder()
                .service(
                    "echo",
                    (operation, payload, ctx) -> {
                      switch (operation) {
                        case "fail" -> throw new IllegalStateException("boom");
                        case "who" -> {
                          return text(ctx.protocol() + " " + ctx.metadata().get("x-who"));
                        }
                        case "deadline" -> {
                          Duration left = ctx.timeRemaining();
                          return text(left == null ? "none" : "some");
                        }
                        default -> {
                          return payload;
                        }
                      }
                    })
                .service("greeter", Greeter.class, new Greetings()));
    channel = grpc.channel();
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
  }

  private static MethodDescriptor<byte[], byte[]> method(String service, String operation) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(service, operation))
        .setRequestMarshaller(TetherGrpc.rawBytes())
        .setResponseMarshaller(TetherGrpc.rawBytes())
        .build();
  }

  private byte[] call(io.grpc.Channel on, String service, String operation, byte[] payload) {
    return ClientCalls.blockingUnaryCall(
        on, method(service, operation), CallOptions.DEFAULT, payload);
  }

  @Test
  void aRawTetherServiceAnswersAGrpcCallWithItsPayloadBytes() {
    assertThat(call(channel, "echo", "anything", text("hi"))).isEqualTo(text("hi"));
    assertThat(call(channel, "echo", "anything", new byte[0])).isEmpty();
  }

  @Test
  void aTypedTetherServiceReadsTheArgumentsItsCodecWrote() {
    byte[] answer =
        call(channel, "greeter", "greet", codec.encodeArguments(new Object[] {"ada", 2}));

    assertThat(codec.decodeValue(answer, String.class)).isEqualTo("hello ada hello ada");
    byte[] later = call(channel, "greeter", "greetLater", codec.encodeValue("bo"));
    assertThat(codec.decodeValue(later, String.class)).isEqualTo("later, bo");
  }

  @Test
  void aTetherServiceSeesTheGrpcCallsProtocolMetadataAndDeadline() {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("x-who", Metadata.ASCII_STRING_MARSHALLER), "me");
    io.grpc.Channel withHeaders =
        io.grpc.ClientInterceptors.intercept(
            channel, MetadataUtils.newAttachHeadersInterceptor(headers));

    assertThat(text(call(withHeaders, "echo", "who", new byte[0]))).isEqualTo("grpc me");
    assertThat(text(call(channel, "echo", "deadline", new byte[0]))).isEqualTo("none");
    assertThat(
            text(
                ClientCalls.blockingUnaryCall(
                    channel,
                    method("echo", "deadline"),
                    CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                    new byte[0])))
        .isEqualTo("some");
  }

  @Test
  void whatATetherServiceThrowsReachesTheGrpcClientAsUnknownWithItsTypeAndMessage() {
    assertThatThrownBy(() -> call(channel, "echo", "fail", new byte[0]))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
              assertThat(e.getStatus().getDescription())
                  .isEqualTo("java.lang.IllegalStateException: boom");
            });
  }

  @Test
  void aTetherServiceOrOperationTheServerLacksIsUnimplemented() {
    assertThatThrownBy(() -> call(channel, "nobody", "greet", new byte[0]))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
    assertThatThrownBy(() -> call(channel, "greeter", "wave", new byte[0]))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  @Test
  void aGrpcServiceOfTheSameServerIsServedBesideTheTetherOnes() {
    assertThat(
            ClientCalls.blockingUnaryCall(
                channel, InteropService.UNARY, CallOptions.DEFAULT, text("grpc")))
        .isEqualTo(text("grpc"));
    assertThat(call(channel, "echo", "x", text("tether"))).isEqualTo(text("tether"));
  }
}
