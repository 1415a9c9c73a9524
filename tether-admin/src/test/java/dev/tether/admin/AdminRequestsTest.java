package dev.tether.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the page answers over a raw socket: only the host names it is reached by (against DNS
 * rebinding), and pipelined requests in the order they came.
 */
class AdminRequestsTest {
  private ObservedEcho page;
  private RawHttp client;

  @BeforeEach
  void start() throws IOException {
    page = new ObservedEcho(UnaryOperator.identity(), b -> b.allowHost("status.example.test"));
    client = new RawHttp(page.admin);
  }

  @AfterEach
  void stop() throws IOException {
    client.close();
    page.close();
  }

  private int port() {
    return page.admin.address().getPort();
  }

  private String statusOf(String host) throws IOException {
    try (RawHttp c = new RawHttp(page.admin)) {
      return c.send(RawHttp.get("/status.json", host)).read().statusLine();
    }
  }

  @Test
  void foreignHostIsRefusedWith421AndGetsNoStatus() throws IOException {
    RawHttp.Response r = client.send(RawHttp.get("/status.json", "rebind.attacker.example")).read();

    assertThat(r.statusLine()).isEqualTo("HTTP/1.1 421 Misdirected Request");
    assertThat(r.body()).doesNotContain("endpoint").contains("allowHost");
    assertThat(statusOf("rebind.attacker.example:" + port())).startsWith("HTTP/1.1 421");
  }

  @Test
  void addressesLocalhostAndAllowedNamesAreServed() throws IOException {
    assertThat(statusOf("127.0.0.1:" + port())).isEqualTo("HTTP/1.1 200 OK");
    assertThat(statusOf("localhost:" + port())).isEqualTo("HTTP/1.1 200 OK");
    assertThat(statusOf("LocalHost")).isEqualTo("HTTP/1.1 200 OK");
    assertThat(statusOf("[::1]:" + port())).isEqualTo("HTTP/1.1 200 OK");
    assertThat(statusOf("status.example.test:" + port())).isEqualTo("HTTP/1.1 200 OK");
    assertThat(statusOf("status.example.test.attacker.example")).startsWith("HTTP/1.1 421");
    assertThat(statusOf("127.0.0.1.attacker.example")).startsWith("HTTP/1.1 421");
  }

  @Test
  void pipelinedRequestsAreAnsweredInTheOrderTheyCame() throws IOException {
    String host = "127.0.0.1:" + port();
    client.send(
        RawHttp.get("/metrics", host)
            + RawHttp.get("/no-such-page", host)
            + RawHttp.get("/status.json", host)
            + RawHttp.get("/index.html", host));

    RawHttp.Response metrics = client.read();
    RawHttp.Response missing = client.read();
    RawHttp.Response status = client.read();
    RawHttp.Response page = client.read();

    assertThat(metrics.statusLine()).isEqualTo("HTTP/1.1 200 OK");
    assertThat(metrics.body()).contains("# TYPE");
    assertThat(missing.statusLine()).isEqualTo("HTTP/1.1 404 Not Found");
    assertThat(status.statusLine()).isEqualTo("HTTP/1.1 200 OK");
    assertThat(status.body()).startsWith("{\"clients\"");
    assertThat(page.statusLine()).isEqualTo("HTTP/1.1 200 OK");
    assertThat(page.body()).contains("<html");
  }

  @Test
  void pipeliningPastTheLimitIsCutOffWithA503AfterTheAnswersInOrder() throws IOException {
    String host = "127.0.0.1:" + port();
    StringBuilder burst = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      burst.append(RawHttp.get("/metrics", host));
    }
    client.send(burst.toString());

    List<String> statuses = new ArrayList<>();
    String last;
    do {
      last = client.read().statusLine();
      statuses.add(last);
    } while (last.equals("HTTP/1.1 200 OK"));

    assertThat(last).isEqualTo("HTTP/1.1 503 Service Unavailable");
    assertThat(statuses).hasSizeLessThanOrEqualTo(ResponseOrder.MAX_PENDING + 1);
    assertThat(client.closedByServer()).isTrue();
  }
}
