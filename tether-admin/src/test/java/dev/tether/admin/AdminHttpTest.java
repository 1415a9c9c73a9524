package dev.tether.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.LoadBalancing;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin routes over real loopback HTTP, against a real server and client. */
class AdminHttpTest {
  private ObservedEcho page;
  private HttpClient http;
  private final ObjectMapper json = new ObjectMapper();
  private TetherServer server;
  private Tether tether;
  private TetherAdmin admin;

  @BeforeEach
  void start() {
    page = new ObservedEcho(p -> p.withLoadBalancing(LoadBalancing.ROUND_ROBIN));
    server = page.server;
    tether = page.tether;
    admin = page.admin;
    http = page.http;
  }

  @AfterEach
  void stop() {
    page.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return page.get(path);
  }

  @Test
  void urlIsLoopbackWithTheBoundPort() {
    assertThat(admin.url()).isEqualTo("http://127.0.0.1:" + admin.address().getPort() + "/");
  }

  @Test
  void statusJsonHasTheDesignShape() throws Exception {
    HttpResponse<String> r = get("status.json");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    JsonNode root = json.readTree(r.body());
    JsonNode connection = root.at("/clients/0/connections/0");
    assertThat(connection.get("endpoint").asText()).isEqualTo(server.endpoints().get(0).toString());
    assertThat(connection.get("state").asText()).isEqualTo("ACTIVE");
    assertThat(connection.get("inFlight").asInt()).isZero();
    assertThat(connection.get("callsOk").asLong()).isEqualTo(1);
    assertThat(connection.get("streams").asInt()).isZero();
    assertThat(root.at("/clients/0/nodes/0/health").asText()).isEqualTo("ALIVE");
    assertThat(root.at("/servers/0/state").asText()).isEqualTo("RUNNING");
    assertThat(root.at("/servers/0/served").asLong()).isEqualTo(1);
    assertThat(root.at("/servers/0/connections").asInt()).isEqualTo(1);
    assertThat(root.at("/servers/0/streams").isInt()).isTrue();
    assertThat(root.at("/servers/0/detachedStreams").isInt()).isTrue();
    assertThat(root.at("/servers/0/streamItemsSent").isNumber()).isTrue();
    // Each protocol the server's port speaks; this one speaks Tether's only.
    assertThat(root.at("/servers/0/protocols/0/protocol").asText()).isEqualTo("tether");
    assertThat(root.at("/servers/0/protocols/0/served").asLong()).isEqualTo(1);
    assertThat(root.at("/servers/0/protocols/0/connections").asInt()).isEqualTo(1);
    assertThat(root.at("/servers/0/protocols").size()).isEqualTo(1);
    assertThat(root.at("/clients/0/streamItemsReceived").asLong()).isZero();
  }

  @Test
  void pageIsOneSelfContainedDocument() throws Exception {
    HttpResponse<String> r = get("");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .contains("<title>Tether status</title>", "new EventSource(")
        .doesNotContain("src=\"http", "href=\"http", "<link ");
  }

  @Test
  void malformedRequestGets400AndTheServerKeepsServing() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", admin.address().getPort()), 5000);
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(
          "GET /status.json HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\u0001\r\n\r\n"
              .getBytes(UTF_8));
      out.flush();
      String statusLine =
          new BufferedReader(new InputStreamReader(s.getInputStream(), UTF_8)).readLine();
      assertThat(statusLine).isEqualTo("HTTP/1.1 400 Bad Request");
    }
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", admin.address().getPort()), 5000);
      s.setSoTimeout(5000);
      s.getOutputStream().write("\u0000\u0001 garbage\r\n\r\n".getBytes(UTF_8));
      String statusLine =
          new BufferedReader(new InputStreamReader(s.getInputStream(), UTF_8)).readLine();
      assertThat(statusLine).startsWith("HTTP/1.1 400");
    }
    assertThat(get("status.json").statusCode()).isEqualTo(200);
  }

  @Test
  void unknownPathsAndOtherMethodsAreRefused() throws Exception {
    assertThat(get("nothing-here").statusCode()).isEqualTo(404);
    HttpRequest post =
        HttpRequest.newBuilder(URI.create(admin.url()).resolve("status.json"))
            .POST(HttpRequest.BodyPublishers.ofString("x"))
            .timeout(Duration.ofSeconds(5))
            .build();
    assertThat(http.send(post, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);
  }

  @Test
  void eventStreamWelcomesWithHistoryAndEventsThenPushesUpdates() throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(admin.url()).resolve("events"))
            .timeout(Duration.ofSeconds(10))
            .build();
    HttpResponse<InputStream> r = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.headers().firstValue("content-type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), UTF_8))) {
      CompletableFuture<String> firstUpdate =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  String welcome = null;
                  for (String line; (line = lines.readLine()) != null; ) {
                    if (line.startsWith("data: ") && welcome == null) {
                      welcome = line;
                    } else if (line.equals("event: update")) {
                      return welcome + "\n" + lines.readLine();
                    }
                  }
                  return null;
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      String both = firstUpdate.get(5, TimeUnit.SECONDS);
      JsonNode welcome =
          json.readTree(both.lines().findFirst().orElseThrow().substring("data: ".length()));
      assertThat(welcome.get("events").findValuesAsText("kind")).contains("CONNECTED", "ACCEPTED");
      assertThat(welcome.has("history")).isTrue();
      JsonNode update =
          json.readTree(
              both.lines().skip(1).findFirst().orElseThrow().substring("data: ".length()));
      assertThat(update.at("/point/wallMillis").asLong()).isPositive();
      assertThat(update.at("/clients/0/nodes/0/health").asText()).isEqualTo("ALIVE");
      assertThat(admin.openStreams()).isEqualTo(1);
    }
  }

  @Test
  void metricsAreServedAsPrometheusText() throws Exception {
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(get("metrics").body())
                    .contains("tether_client_calls_total{outcome=\"ok\",protocol=\"tether\"} 1.0")
                    .contains("tether_server_connections{"));
  }
}
