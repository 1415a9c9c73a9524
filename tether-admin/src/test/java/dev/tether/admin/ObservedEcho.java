package dev.tether.admin;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * What the admin tests look at: an echo server and a runtime that has called it once, both observed
 * by a status page bound to loopback, and an HTTP client for the page's routes.
 */
final class ObservedEcho implements AutoCloseable {
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final TetherServer server;
  final Tether tether;
  final Proxy echo;
  final TetherAdmin admin;

  /**
   * @param shape how the client's proxy is made from the server's proxy string (balanced, say)
   */
  ObservedEcho(UnaryOperator<Proxy> shape) {
    this(shape, UnaryOperator.identity());
  }

  /**
   * @param settings what the test sets on the page's builder (its limits, say)
   */
  ObservedEcho(UnaryOperator<Proxy> shape, UnaryOperator<TetherAdmin.Builder> settings) {
    TetherAdmin.Builder builder = settings.apply(TetherAdmin.builder().bind("127.0.0.1", 0));
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .listener(builder.listener())
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
    tether = Tether.builder().listener(builder.listener()).build();
    echo = shape.apply(tether.proxy(server.proxyString("echo")));
    echo.invoke("echo", "hi".getBytes(UTF_8));
    admin = builder.observe(tether).observe(server).build().start();
  }

  /** GETs {@code path} from the page, within 5 s. */
  HttpResponse<String> get(String path) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(admin.url()).resolve(path))
            .timeout(Duration.ofSeconds(5))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    admin.close();
    tether.close();
    server.close();
  }
}
