package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectionState;
import dev.tether.EndpointSelection;
import dev.tether.Tether;
import dev.tether.admin.TetherAdmin;
import dev.tether.micrometer.TetherMetrics;
import dev.tether.observe.ConnectionStatus;
import dev.tether.observe.TetherEvent;
import dev.tether.opentelemetry.TetherTelemetry;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
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
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Tether channel's calls to grpc-java's own servers are observed as Tether's own: events and
 * {@code tether.status()} list the gRPC connections with their protocol, the status page shows
 * them, the client meters count them under {@code protocol=grpc}, and OpenTelemetry makes the
 * CLIENT and attempt spans and sends {@code traceparent} in the gRPC metadata.
 */
@Timeout(60)
class TetherChannelObservabilityTest {
  private static final Metadata.Key<String> TRACEPARENT =
      Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER);

  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final List<String> traceparents = new CopyOnWriteArrayList<>();
  private final List<Server> servers = new ArrayList<>();
  private final List<AutoCloseable> others = new ArrayList<>();
  private final CountingService service = new CountingService("a");
  private Tether tether;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    for (int i = others.size() - 1; i >= 0; i--) {
      others.get(i).close();
    }
    tether.close();
    for (Server s : servers) {
      s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** grpc-java's server, whose interceptor keeps the {@code traceparent} each call brought. */
  private int serve() throws IOException {
    ServerInterceptor keepTraceparent =
        new ServerInterceptor() {
          @Override
          public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(
              io.grpc.ServerCall<Q, R> call,
              Metadata headers,
              io.grpc.ServerCallHandler<Q, R> next) {
            String traceparent = headers.get(TRACEPARENT);
            if (traceparent != null) {
              traceparents.add(traceparent);
            }
            return next.startCall(call, headers);
          }
        };
    Server s =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(service.definition(), keepTraceparent))
            .build()
            .start();
    servers.add(s);
    return s.getPort();
  }

  private void channelTo(Tether.Builder builder, String endpoints) {
    tether = builder.listener(events::add).build();
    channel =
        TetherGrpc.channel(
            tether.proxy("counting:" + endpoints).withEndpointSelection(EndpointSelection.ORDERED));
  }

  private String call() {
    return text(
        ClientCalls.blockingUnaryCall(
            channel,
            CountingService.CALL,
            CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
            text("x")));
  }

  private static String endpoint(int port) {
    return "tcp -h 127.0.0.1 -p " + port;
  }

  @Test
  void eventsAndStatusListTheGrpcConnectionWithItsProtocolAndItsCalls() throws Exception {
    int port = serve();
    channelTo(Tether.builder(), endpoint(port));

    assertThat(call()).isEqualTo("a");
    service.failWith = Status.INTERNAL.withDescription("broken");
    assertThatThrownBy(this::call).isInstanceOf(StatusRuntimeException.class);

    ConnectionStatus c = tether.status().connections().get(0);
    assertThat(tether.status().connections()).hasSize(1);
    assertThat(c.protocol()).isEqualTo("grpc");
    assertThat(c.endpoint()).isEqualTo(endpoint(port));
    assertThat(c.state()).isEqualTo(ConnectionState.ACTIVE);
    assertThat(c.callsOk()).isEqualTo(1);
    assertThat(c.callsFailed()).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.CONNECTED
                                && endpoint(port).equals(e.endpoint())));
    assertThat(events)
        .filteredOn(e -> endpoint(port).equals(e.endpoint()))
        .extracting(TetherEvent::kind)
        .startsWith(TetherEvent.Kind.CONNECTING, TetherEvent.Kind.CONNECTED);
  }

  @Test
  void theStatusPageListsTheGrpcConnectionWithItsProtocol() throws Exception {
    int port = serve();
    channelTo(Tether.builder(), endpoint(port));
    call();
    TetherAdmin admin = TetherAdmin.builder().bind("127.0.0.1", 0).observe(tether).build().start();
    others.add(admin);

    HttpResponse<String> status =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(admin.url() + "status.json"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());

    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(status.body())
        .contains("\"endpoint\":\"" + endpoint(port) + "\",\"protocol\":\"grpc\"");
  }

  @Test
  void theClientMetersCountGrpcCallsUnderTheirProtocol() throws Exception {
    int port = serve();
    channelTo(Tether.builder(), endpoint(port));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    others.add(TetherMetrics.bind(tether, registry, Duration.ofMillis(20)));

    for (int i = 0; i < 3; i++) {
      call();
    }
    service.failWith = Status.UNAVAILABLE;
    assertThatThrownBy(this::call).isInstanceOf(StatusRuntimeException.class);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(
                      registry
                          .get("tether.client.calls")
                          .tags("outcome", "ok", "protocol", "grpc")
                          .functionCounter()
                          .count())
                  .isEqualTo(3);
              assertThat(
                      registry
                          .get("tether.client.calls")
                          .tags("outcome", "failed", "protocol", "grpc")
                          .functionCounter()
                          .count())
                  .isEqualTo(1);
              assertThat(
                      registry
                          .get("tether.client.connections")
                          .tags("state", "ACTIVE", "protocol", "grpc")
                          .gauge()
                          .value())
                  .isEqualTo(1);
            });
    assertThat(
            registry
                .get("tether.client.calls")
                .tags("outcome", "ok", "protocol", "tether")
                .functionCounter()
                .count())
        .isZero();
  }

  @Test
  void aRetriedGrpcCallMakesAClientSpanAndAttemptSpansWhoseContextTheServerHears()
      throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    others.add(otel);
    RefusingHttp2Server refusing = new RefusingHttp2Server(RefusingHttp2Server.Mode.REFUSED_STREAM);
    others.add(refusing);
    int port = serve();
    channelTo(
        TetherTelemetry.create(otel).configure(Tether.builder()),
        endpoint(refusing.port()) + ":" + endpoint(port));

    assertThat(call()).isEqualTo("a");

    await().atMost(Duration.ofSeconds(5)).until(() -> spans.getFinishedSpanItems().size() == 3);
    List<SpanData> all = spans.getFinishedSpanItems();
    SpanData client =
        all.stream().filter(s -> s.getKind() == SpanKind.CLIENT).findFirst().orElseThrow();
    assertThat(client.getName()).contains(CountingService.CALL.getFullMethodName());
    List<SpanData> attempts =
        all.stream()
            .filter(s -> s.getKind() == SpanKind.INTERNAL)
            .sorted(Comparator.comparing(SpanData::getStartEpochNanos))
            .toList();
    assertThat(attempts)
        .hasSize(2)
        .allSatisfy(a -> assertThat(a.getParentSpanId()).isEqualTo(client.getSpanId()));
    // The refusing server never ran it: grpc-java's heard one traceparent, the second attempt's
    // (its flags say sampled, and maybe more).
    assertThat(traceparents)
        .singleElement()
        .asString()
        .startsWith("00-" + client.getTraceId() + "-" + attempts.get(1).getSpanId() + "-");
  }

  @Test
  void aGrpcCallAnsweredWithAnErrorStatusEndsItsClientSpanFailedWithThatStatusAsGrpc()
      throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    OpenTelemetrySdk otel = tracing(spans);
    channelTo(TetherTelemetry.create(otel).configure(Tether.builder()), endpoint(serve()));

    assertThat(call()).isEqualTo("a");
    service.failWith = Status.NOT_FOUND.withDescription("no such key");
    assertThatThrownBy(this::call).isInstanceOf(StatusRuntimeException.class);

    await().atMost(Duration.ofSeconds(5)).until(() -> spans.getFinishedSpanItems().size() == 2);
    SpanData ok = spans.getFinishedSpanItems().get(0);
    SpanData failed = spans.getFinishedSpanItems().get(1);
    assertThat(ok.getAttributes().get(AttributeKey.stringKey("rpc.system.name"))).isEqualTo("grpc");
    assertThat(ok.getAttributes().get(AttributeKey.stringKey("rpc.status_code"))).isEqualTo("OK");
    assertThat(ok.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(failed.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("rpc.system.name")))
        .isEqualTo("grpc");
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("rpc.status_code")))
        .isEqualTo("NOT_FOUND");
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("NOT_FOUND");
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }

  /** OpenTelemetry recording into {@code spans}, with the W3C propagator. */
  private OpenTelemetrySdk tracing(InMemorySpanExporter spans) {
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    others.add(otel);
    return otel;
  }

  @Test
  void aGrpcCallOnItsFirstAttemptSendsTheClientSpanAsTraceparent() throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    OpenTelemetrySdk otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    others.add(otel);
    channelTo(TetherTelemetry.create(otel).configure(Tether.builder()), endpoint(serve()));

    call();

    await().atMost(Duration.ofSeconds(5)).until(() -> spans.getFinishedSpanItems().size() == 1);
    SpanData client = spans.getFinishedSpanItems().get(0);
    assertThat(client.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(traceparents)
        .singleElement()
        .asString()
        .startsWith("00-" + client.getTraceId() + "-" + client.getSpanId() + "-");
  }
}
