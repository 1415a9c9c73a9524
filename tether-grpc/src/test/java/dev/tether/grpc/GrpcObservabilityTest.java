package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.CallContext;
import dev.tether.PermissionDeniedException;
import dev.tether.TetherServer;
import dev.tether.micrometer.TetherMetrics;
import dev.tether.observe.ServerStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.opentelemetry.TetherTelemetry;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * gRPC calls from grpc-java's own client count like Tether's own: in {@code server.status()}, the
 * server's events, its Micrometer meters, its OpenTelemetry SERVER spans and its interceptors, each
 * saying which protocol.
 */
@Timeout(60)
class GrpcObservabilityTest {
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String PARENT_SPAN_ID = "00f067aa0ba902b7";

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk otel =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(spans))
                  .build())
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
          .build();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final List<CallContext> intercepted = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    TetherServer.Builder builder =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (operation, payload, ctx) -> payload)
            .listener(events::add)
            .interceptor(
                call -> {
                  intercepted.add(call);
                  if (call.metadata().containsKey("x-deny")) {
                    throw new PermissionDeniedException("no entry for " + call.operation());
                  }
                });
    server =
        TetherGrpc.server()
            .service(new InteropService().definition())
            .configure(TetherTelemetry.create(otel).configure(builder))
            .build()
            .start();
    TetherMetrics.bind(server, registry);
    channel =
        ManagedChannelBuilder.forAddress("127.0.0.1", server.endpoints().get(0).port())
            .usePlaintext()
            .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
    otel.close();
  }

  @Test
  void aGrpcCallCountsInTheServersStatusUnderItsProtocol() {
    assertThat(server.status().byProtocol())
        .extracting(ServerStatus.ProtocolShare::protocol)
        .containsExactly("tether", "grpc");

    byte[] answer =
        ClientCalls.blockingUnaryCall(
            channel, InteropService.UNARY, CallOptions.DEFAULT, text("hello"));

    assertThat(answer).isEqualTo(text("hello"));
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              ServerStatus s = server.status();
              assertThat(s.protocol("grpc"))
                  .isEqualTo(new ServerStatus.ProtocolShare("grpc", 1, 0, 1));
              assertThat(s.protocol("tether"))
                  .isEqualTo(new ServerStatus.ProtocolShare("tether", 0, 0, 0));
              assertThat(s.connections()).isEqualTo(1);
              assertThat(s.served()).isEqualTo(1);
            });
  }

  @Test
  void aGrpcCallInFlightCountsUntilItsClientCancelsIt() {
    ClientCall<byte[], byte[]> sleeping =
        channel.newCall(InteropService.SLEEP, CallOptions.DEFAULT);
    ClientCalls.futureUnaryCall(sleeping, text("zzz"));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> server.status().protocol("grpc").inFlight() == 1);
    assertThat(server.status().inFlight()).isEqualTo(1);

    sleeping.cancel("enough", null);

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(server.status().protocol("grpc"))
                    .isEqualTo(new ServerStatus.ProtocolShare("grpc", 1, 0, 1)));
  }

  @Test
  void aGrpcConnectionIsAcceptedAndDrainedWithTheServersEvents() {
    ClientCalls.blockingUnaryCall(channel, InteropService.EMPTY, CallOptions.DEFAULT, new byte[0]);
    await().atMost(Duration.ofSeconds(5)).until(() -> kinds().contains(TetherEvent.Kind.ACCEPTED));
    assertThat(detailOf(TetherEvent.Kind.ACCEPTED)).startsWith("grpc: ");

    server.shutdownGracefully(Duration.ofSeconds(10));

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> kinds().contains(TetherEvent.Kind.GOAWAY_SENT));
    assertThat(detailOf(TetherEvent.Kind.GOAWAY_SENT)).startsWith("grpc: ");
  }

  @Test
  void aGrpcCallIncrementsTheServerMetersTaggedWithItsProtocol() {
    for (int i = 0; i < 3; i++) {
      ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, CallOptions.DEFAULT, text("x"));
    }

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              assertThat(
                      registry
                          .get("tether.server.calls")
                          .tag("protocol", "grpc")
                          .functionCounter()
                          .count())
                  .isEqualTo(3);
              assertThat(
                      registry
                          .get("tether.server.connections")
                          .tag("protocol", "grpc")
                          .gauge()
                          .value())
                  .isEqualTo(1);
            });
    assertThat(
            registry.get("tether.server.calls").tag("protocol", "tether").functionCounter().count())
        .isZero();
  }

  @Test
  void aGrpcCallMakesAServerSpanUnderTheTraceparentItsClientSent() {
    Metadata headers = new Metadata();
    headers.put(
        Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER),
        "00-" + TRACE_ID + "-" + PARENT_SPAN_ID + "-01");
    io.grpc.Channel traced =
        io.grpc.ClientInterceptors.intercept(
            channel, MetadataUtils.newAttachHeadersInterceptor(headers));

    ClientCalls.blockingUnaryCall(traced, InteropService.UNARY, CallOptions.DEFAULT, text("x"));
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    traced, InteropService.STATUS, CallOptions.DEFAULT, text("5 not here")))
        .isInstanceOf(StatusRuntimeException.class);

    await().atMost(Duration.ofSeconds(5)).until(() -> spans.getFinishedSpanItems().size() == 2);
    SpanData ok = span("tether.testing.Interop/UnaryCall");
    assertThat(ok.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(ok.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(ok.getParentSpanId()).isEqualTo(PARENT_SPAN_ID);
    assertThat(ok.getAttributes().get(AttributeKey.stringKey("rpc.system.name"))).isEqualTo("grpc");
    assertThat(ok.getAttributes().get(AttributeKey.stringKey("rpc.status_code"))).isEqualTo("OK");
    assertThat(ok.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

    SpanData failed = span("tether.testing.Interop/StatusCall");
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("rpc.status_code")))
        .isEqualTo("NOT_FOUND");
  }

  @Test
  void aGrpcServerSpanFailsOnlyForTheStatusesTheConventionsCountAsTheServersError() {
    for (String status : List.of("5 not here", "13 broken")) {
      assertThatThrownBy(
              () ->
                  ClientCalls.blockingUnaryCall(
                      channel, InteropService.STATUS, CallOptions.DEFAULT, text(status)))
          .isInstanceOf(StatusRuntimeException.class);
    }

    await().atMost(Duration.ofSeconds(5)).until(() -> spans.getFinishedSpanItems().size() == 2);
    SpanData notFound = spans.getFinishedSpanItems().get(0);
    SpanData internal = spans.getFinishedSpanItems().get(1);
    // NOT_FOUND is the service's answer, not the server's failure: the span is not an error.
    assertThat(notFound.getAttributes().get(AttributeKey.stringKey("rpc.status_code")))
        .isEqualTo("NOT_FOUND");
    assertThat(notFound.getAttributes().get(AttributeKey.stringKey("error.type"))).isNull();
    assertThat(notFound.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(internal.getAttributes().get(AttributeKey.stringKey("rpc.status_code")))
        .isEqualTo("INTERNAL");
    assertThat(internal.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("INTERNAL");
    assertThat(internal.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }

  @Test
  void theServersInterceptorsSeeGrpcCallsAndMayRefuseThem() {
    ClientCalls.blockingUnaryCall(channel, InteropService.UNARY, CallOptions.DEFAULT, text("x"));
    CallContext seen = intercepted.get(0);
    assertThat(seen.protocol()).isEqualTo("grpc");
    assertThat(seen.service()).isEqualTo(InteropService.SERVICE);
    assertThat(seen.operation()).isEqualTo("UnaryCall");
    assertThat(seen.metadata()).containsEntry("content-type", "application/grpc");

    Metadata deny = new Metadata();
    deny.put(Metadata.Key.of("x-deny", Metadata.ASCII_STRING_MARSHALLER), "yes");
    io.grpc.Channel denied =
        io.grpc.ClientInterceptors.intercept(
            channel, MetadataUtils.newAttachHeadersInterceptor(deny));
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    denied, InteropService.UNARY, CallOptions.DEFAULT, text("x")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
              assertThat(e.getStatus().getDescription()).isEqualTo("no entry for UnaryCall");
            });
  }

  private List<TetherEvent.Kind> kinds() {
    return events.stream().map(TetherEvent::kind).toList();
  }

  private String detailOf(TetherEvent.Kind kind) {
    return events.stream().filter(e -> e.kind() == kind).findFirst().orElseThrow().detail();
  }

  private SpanData span(String name) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
