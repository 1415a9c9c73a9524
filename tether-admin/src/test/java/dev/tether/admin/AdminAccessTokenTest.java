package dev.tether.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.TetherServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A page with an access token answers only requests that carry it, and never shows it. */
class AdminAccessTokenTest {
  private static final String TOKEN = "k3y-0f-the-page";

  /**
   * Only a bound on a request that never gets its answer: a fresh JVM's first requests load the
   * HTTP client, the page's codec and Jackson, and the first snapshot waits behind the sampler's
   * first tick on the page's one worker: seconds, on a loaded two-core machine.
   */
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private final HttpClient http = HttpClient.newHttpClient();
  private TetherServer server;
  private TetherAdmin admin;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
    admin =
        TetherAdmin.builder()
            .bind("127.0.0.1", 0)
            .accessToken(TOKEN)
            .observe(server)
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    admin.close();
    server.close();
  }

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(admin.url()).resolve(path)).timeout(PATIENCE);
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyRouteRefusesARequestWithoutTheToken() throws Exception {
    for (String path : new String[] {"", "status.json", "events", "metrics"}) {
      HttpResponse<String> r = get(path, null);
      assertThat(r.statusCode()).as(path).isEqualTo(401);
      assertThat(r.body()).as(path).contains("access token").doesNotContain(TOKEN);
    }
    assertThat(get("status.json?token=wrong", null).statusCode()).isEqualTo(401);
  }

  @Test
  void theTokenInTheQueryOrAsBearerOpensThePage() throws Exception {
    assertThat(get("status.json?token=" + TOKEN, null).statusCode()).isEqualTo(200);
    assertThat(get("status.json", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
    HttpResponse<String> page = get("?token=" + TOKEN, null);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).doesNotContain(TOKEN);
  }
}
