package dev.tether.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.EndpointSelection;
import dev.tether.Proxy;
import dev.tether.RemoteException;
import dev.tether.Tether;
import dev.tether.TetherException;
import dev.tether.TetherServer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The spans of real calls over loopback, recorded by the SDK's in-memory exporter. */
class TetherTelemetryTest {
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider tracerProvider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final OpenTelemetrySdk otel =
      OpenTelemetrySdk.builder()
          .setTracerProvider(tracerProvider)
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
          .build();
  private final TetherTelemetry telemetry = TetherTelemetry.create(otel);

  /** The metadata each execution saw, in order. */
  private final List<Map<String, String>> serverMetadata = new CopyOnWriteArrayList<>();

  private final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    otel.close();
  }

  private TetherServer server(TetherServer.Builder b) {
    TetherServer s =
        b.endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  serverMetadata.add(Map.copyOf(ctx.metadata()));
                  if (op.equals("fail")) {
                    throw new IllegalStateException("boom");
                  }
                  return payload;
                })
            .build()
            .start();
    closing.add(s);
    return s;
  }

  private TetherServer tracedServer() {
    return server(telemetry.configure(TetherServer.builder()));
  }

  private Tether tracedClient() {
    Tether t = telemetry.configure(Tether.builder()).build();
    closing.add(t);
    return t;
  }

  private List<SpanData> awaitSpans(int count) {
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> exporter.getFinishedSpanItems().size() >= count);
    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertThat(spans).hasSize(count);
    return spans;
  }

  private static SpanData only(List<SpanData> spans, SpanKind kind) {
    List<SpanData> of = spans.stream().filter(s -> s.getKind() == kind).toList();
    assertThat(of).hasSize(1);
    return of.get(0);
  }

  @Test
  void
      callsClientSpanAndItsExecutionsServerSpanShareTheTraceAndTheServerSpanHangsUnderTheClientSpan() {
    TetherServer server = tracedServer();
    Proxy p = tracedClient().proxy(server.proxyString("svc"));

    p.invoke("echo", new byte[] {1});

    List<SpanData> spans = awaitSpans(2);
    SpanData client = only(spans, SpanKind.CLIENT);
    SpanData execution = only(spans, SpanKind.SERVER);
    assertThat(client.getName()).isEqualTo("svc/echo");
    assertThat(execution.getName()).isEqualTo("svc/echo");
    assertThat(execution.getTraceId()).isEqualTo(client.getTraceId());
    assertThat(execution.getParentSpanId()).isEqualTo(client.getSpanId());
    assertThat(execution.getParentSpanContext().isRemote()).isTrue();
    assertThat(client.getAttributes().get(AttributeKey.stringKey("rpc.system.name")))
        .isEqualTo("tether");
    assertThat(client.getAttributes().get(AttributeKey.stringKey("rpc.method")))
        .isEqualTo("svc/echo");
    assertThat(client.getAttributes().get(AttributeKey.stringKey("rpc.status_code")))
        .isEqualTo("OK");
    assertThat(client.getAttributes().get(AttributeKey.stringKey("server.address")))
        .isEqualTo("127.0.0.1");
    assertThat(client.getAttributes().get(AttributeKey.longKey("server.port")))
        .isEqualTo((long) server.endpoints().get(0).port());
    assertThat(client.getAttributes().get(AttributeKey.stringKey("error.type"))).isNull();
    assertThat(execution.getAttributes().get(AttributeKey.stringKey("rpc.status_code")))
        .isEqualTo("OK");
    assertThat(serverMetadata.get(0)).containsKey("traceparent");
  }

  @Test
  void streamOpeningIsAClientSpanAndAServerSpanUnderItCurrentWhileTheStreamServiceOpens()
      throws Exception {
    List<Map<String, String>> openings = new CopyOnWriteArrayList<>();
    List<String> currentWhileOpening = new CopyOnWriteArrayList<>();
    TetherServer server =
        telemetry
            .configure(TetherServer.builder())
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .streamService(
                "feed",
                (operation, request, inbound, ctx) -> {
                  openings.add(Map.copyOf(ctx.metadata()));
                  currentWhileOpening.add(Span.current().getSpanContext().getSpanId());
                  return subscriber -> { // a stream of no items
                    subscriber.onSubscribe(
                        new java.util.concurrent.Flow.Subscription() {
                          @Override
                          public void request(long n) {}

                          @Override
                          public void cancel() {}
                        });
                    subscriber.onComplete();
                  };
                })
            .build()
            .start();
    closing.add(server);
    java.util.concurrent.CompletableFuture<Void> ended =
        new java.util.concurrent.CompletableFuture<>();

    tracedClient().proxy(server.proxyString("feed")).stream("count", new byte[0])
        .subscribe(
            new java.util.concurrent.Flow.Subscriber<byte[]>() {
              @Override
              public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(byte[] item) {}

              @Override
              public void onError(Throwable failure) {
                ended.completeExceptionally(failure);
              }

              @Override
              public void onComplete() {
                ended.complete(null);
              }
            });

    ended.get(10, java.util.concurrent.TimeUnit.SECONDS);
    List<SpanData> spans = awaitSpans(2);
    SpanData opening = only(spans, SpanKind.CLIENT);
    SpanData opened = only(spans, SpanKind.SERVER);
    assertThat(opening.getName()).isEqualTo("feed/count");
    assertThat(opening.getAttributes().get(AttributeKey.stringKey("rpc.status_code")))
        .isEqualTo("OK");
    assertThat(openings).hasSize(1);
    assertThat(openings.get(0).get("traceparent")).contains(opening.getTraceId());
    assertThat(opened.getName()).isEqualTo("feed/count");
    assertThat(opened.getParentSpanId()).isEqualTo(opening.getSpanId());
    assertThat(opened.getAttributes().get(AttributeKey.stringKey("rpc.status_code")))
        .isEqualTo("OK");
    assertThat(currentWhileOpening).containsExactly(opened.getSpanId());
  }

  @Test
  void clientSpanIsAChildOfTheSpanCurrentWhereTheCallIsMade() {
    TetherServer server = tracedServer();
    Proxy p = tracedClient().proxy(server.proxyString("svc"));
    Span outer = otel.getTracer("test").spanBuilder("outer").startSpan();

    Scope scope = outer.makeCurrent();
    try {
      p.invoke("echo", new byte[] {1});
    } finally {
      scope.close();
      outer.end();
    }

    List<SpanData> spans = awaitSpans(3);
    assertThat(only(spans, SpanKind.CLIENT).getParentSpanId())
        .isEqualTo(outer.getSpanContext().getSpanId());
    assertThat(only(spans, SpanKind.SERVER).getTraceId())
        .isEqualTo(outer.getSpanContext().getTraceId());
  }

  @Test
  void callsAServiceMakesWhileItRunsAreChildrenOfItsServerSpan() {
    TetherServer back = tracedServer();
    Tether client = tracedClient();
    Proxy toBack = client.proxy(back.proxyString("svc"));
    TetherServer front =
        telemetry
            .configure(TetherServer.builder())
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("front", (op, payload, ctx) -> toBack.invoke("echo", payload))
            .build()
            .start();
    closing.add(front);

    client.proxy(front.proxyString("front")).invoke("relay", new byte[] {4});

    List<SpanData> spans = awaitSpans(4);
    SpanData frontExecution =
        spans.stream()
            .filter(s -> s.getName().equals("front/relay") && s.getKind() == SpanKind.SERVER)
            .findFirst()
            .orElseThrow();
    SpanData nested =
        spans.stream()
            .filter(s -> s.getName().equals("svc/echo") && s.getKind() == SpanKind.CLIENT)
            .findFirst()
            .orElseThrow();
    assertThat(nested.getParentSpanId()).isEqualTo(frontExecution.getSpanId());
    assertThat(spans).extracting(SpanData::getTraceId).containsOnly(frontExecution.getTraceId());
  }

  @Test
  void retriedCallIsOneClientSpanWithAChildSpanPerAttempt() {
    TetherServer refusing =
        server(
            telemetry.configure(
                TetherServer.builder()
                    .executor(
                        task -> {
                          throw new RejectedExecutionException("no thread free");
                        })));
    TetherServer server = tracedServer();
    Proxy p =
        tracedClient()
            .proxy("svc:" + refusing.endpoints().get(0) + ":" + server.endpoints().get(0))
            .withEndpointSelection(EndpointSelection.ORDERED);

    p.invoke("echo", new byte[] {2});

    // CLIENT, two attempts, and one SERVER span: the refusing server never ran the request.
    List<SpanData> spans = awaitSpans(4);
    SpanData client = only(spans, SpanKind.CLIENT);
    List<SpanData> attempts =
        spans.stream()
            .filter(s -> s.getKind() == SpanKind.INTERNAL)
            .sorted(
                java.util.Comparator.comparing(
                    s -> s.getAttributes().get(RpcAttributes.ATTEMPT_NUMBER)))
            .toList();
    assertThat(attempts)
        .hasSize(2)
        .allSatisfy(
            a -> {
              assertThat(a.getParentSpanId()).isEqualTo(client.getSpanId());
              assertThat(a.getName()).isEqualTo("svc/echo attempt");
            });
    SpanData first = attempts.get(0);
    SpanData second = attempts.get(1);
    assertThat(first.getAttributes().get(RpcAttributes.SERVER_PORT))
        .isEqualTo((long) refusing.endpoints().get(0).port());
    assertThat(first.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(first.getStartEpochNanos()).isLessThanOrEqualTo(second.getStartEpochNanos());
    assertThat(second.getAttributes().get(RpcAttributes.ATTEMPT_REASON)).isEqualTo("REFUSED");
    assertThat(second.getAttributes().get(RpcAttributes.SERVER_PORT))
        .isEqualTo((long) server.endpoints().get(0).port());
    assertThat(only(spans, SpanKind.SERVER).getParentSpanId()).isEqualTo(second.getSpanId());
    assertThat(client.getAttributes().get(RpcAttributes.RPC_STATUS_CODE)).isEqualTo("OK");
  }

  @Test
  void hedgedCallIsOneClientSpanWithAnAttemptSpanPerHedge() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    TetherServer slow =
        telemetry
            .configure(TetherServer.builder())
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "svc",
                (op, payload, ctx) -> {
                  release.await();
                  return payload;
                })
            .build()
            .start();
    closing.add(slow);
    TetherServer fast = tracedServer();
    Proxy p =
        tracedClient()
            .proxy("svc:" + slow.endpoints().get(0) + ":" + fast.endpoints().get(0))
            .withEndpointSelection(EndpointSelection.ORDERED)
            .withHedging(Duration.ofMillis(50), 2);
    // Connected first, the call is on the slow server when it starts, so the hedge goes elsewhere.
    p.connectAsync().get(5, java.util.concurrent.TimeUnit.SECONDS);

    try {
      p.invokeAsync("echo", new byte[] {6}, dev.tether.Idempotency.IDEMPOTENT)
          .get(5, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      release.countDown();
    }

    // CLIENT, two attempts, and a SERVER span on each server (the slow one ends once released).
    List<SpanData> spans = awaitSpans(5);
    SpanData client = only(spans, SpanKind.CLIENT);
    SpanData hedge =
        spans.stream()
            .filter(s -> "HEDGE".equals(s.getAttributes().get(RpcAttributes.ATTEMPT_REASON)))
            .findFirst()
            .orElseThrow();
    assertThat(hedge.getParentSpanId()).isEqualTo(client.getSpanId());
    assertThat(hedge.getAttributes().get(RpcAttributes.SERVER_PORT))
        .isEqualTo((long) fast.endpoints().get(0).port());
    assertThat(spans.stream().filter(s -> s.getKind() == SpanKind.INTERNAL)).hasSize(2);
    assertThat(
            spans.stream()
                .filter(s -> s.getKind() == SpanKind.SERVER)
                .map(SpanData::getParentSpanId))
        .containsExactlyInAnyOrder(client.getSpanId(), hedge.getSpanId());
  }

  @Test
  void failedCallSetsErrorTypeAndStatusOnBothSides() {
    TetherServer server = tracedServer();
    Proxy p = tracedClient().proxy(server.proxyString("svc"));

    assertThatThrownBy(() -> p.invoke("fail", new byte[0])).isInstanceOf(RemoteException.class);

    List<SpanData> spans = awaitSpans(2);
    SpanData client = only(spans, SpanKind.CLIENT);
    SpanData execution = only(spans, SpanKind.SERVER);
    for (SpanData s : List.of(client, execution)) {
      assertThat(s.getAttributes().get(RpcAttributes.RPC_STATUS_CODE)).isEqualTo("REMOTE_ERROR");
      assertThat(s.getAttributes().get(RpcAttributes.ERROR_TYPE)).isEqualTo("REMOTE_ERROR");
      assertThat(s.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    }
    assertThat(execution.getEvents())
        .anySatisfy(e -> assertThat(e.getName()).isEqualTo("exception"));
  }

  @Test
  void callThatReachesNoServerNamesTheExceptionClassAsItsErrorType() throws IOException {
    int deadPort;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      deadPort = s.getLocalPort();
    }
    Proxy p = tracedClient().proxy("svc:tcp -h 127.0.0.1 -p " + deadPort);

    Throwable thrown =
        org.assertj.core.api.Assertions.catchThrowable(() -> p.invoke("echo", new byte[0]));

    assertThat(thrown).isInstanceOf(TetherException.class);
    SpanData client = only(awaitSpans(1), SpanKind.CLIENT);
    assertThat(client.getAttributes().get(RpcAttributes.ERROR_TYPE))
        .isEqualTo(thrown.getClass().getName());
    assertThat(client.getAttributes().get(RpcAttributes.RPC_STATUS_CODE))
        .isEqualTo(RpcStatus.of(thrown).code());
    assertThat(client.getAttributes().get(RpcAttributes.SERVER_ADDRESS)).isNull();
  }

  @Test
  void withoutTheModuleNothingIsRecordedAndNoTraceContextTravels() {
    TetherServer server = server(TetherServer.builder());
    Tether plain = Tether.create();
    closing.add(plain);
    Span outer = otel.getTracer("test").spanBuilder("outer").startSpan();

    Scope scope = outer.makeCurrent();
    try {
      plain
          .proxy(server.proxyString("svc"))
          .withMetadata("tenant", "a")
          .invoke("echo", new byte[] {1});
    } finally {
      scope.close();
      outer.end();
    }

    assertThat(serverMetadata).containsExactly(Map.of("tenant", "a"));
    assertThat(exporter.getFinishedSpanItems())
        .extracting(SpanData::getName)
        .containsExactly("outer");
  }
}
