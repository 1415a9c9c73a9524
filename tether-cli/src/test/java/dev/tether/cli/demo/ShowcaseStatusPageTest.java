package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.Tether;
import dev.tether.admin.TetherAdmin;
import dev.tether.cli.kv.KeyValue;
import dev.tether.cli.kv.KeyValueStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The showcase's status page as {@code tether demo --admin} wires it (its client with the callers'
 * proxy, and the cluster's servers as they are at each sample), over real loopback: it lists the
 * servers, restarted ones as their new incarnation, and the node group.
 */
class ShowcaseStatusPageTest {
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  private JsonNode status(TetherAdmin admin) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(admin.url()).resolve("status.json"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return new ObjectMapper().readTree(r.body());
  }

  private static List<String> field(JsonNode array, String name) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.get(name).asText()));
    return out;
  }

  @Test
  void demoStatusJsonListsTheServersRestartedOnesIncludedAndTheNodeGroup() throws Exception {
    TetherAdmin.Builder page = TetherAdmin.builder().bind("127.0.0.1", 0);
    DemoCluster cluster =
        DemoCluster.startBehindFaultProxies(
            3, new KeyValueStore(), new Timeline(System::nanoTime, e -> {}), page.listener());
    closing.add(cluster);
    Tether tether = Tether.builder().listener(page.listener()).build();
    closing.add(tether);
    KeyValue kv =
        ShowcaseRun.balancedProxy(tether, cluster, Duration.ofSeconds(5)).as(KeyValue.class);
    for (int i = 0; i < 6; i++) {
      kv.put("k" + i, "v"); // round robin: every node gets calls
    }
    TetherAdmin admin =
        page.observe(tether).observeServers(cluster::servers).build().start(); // as DemoStatusPage
    closing.add(admin);

    JsonNode before = status(admin);
    assertThat(field(before.get("servers"), "state"))
        .containsExactly("RUNNING", "RUNNING", "RUNNING");
    assertThat(field(before.at("/clients/0/nodes"), "health"))
        .containsExactly("ALIVE", "ALIVE", "ALIVE");
    String firstId = before.at("/servers/0/serverId").asText();

    cluster.stopAbruptly("server-1");
    // status.json is a snapshot at most 100 ms old: wait for one taken after the change.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> assertThat(status(admin).at("/servers/0/state").asText()).isEqualTo("CLOSED"));
    cluster.restart("server-1");

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              JsonNode after = status(admin);
              assertThat(field(after.get("servers"), "state"))
                  .containsExactly("RUNNING", "RUNNING", "RUNNING");
              assertThat(after.at("/servers/0/serverId").asText()).isNotEqualTo(firstId);
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(field(status(admin).at("/clients/0/nodes"), "endpoint")).hasSize(3));
  }
}
