package dev.tether.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders a {@code /status.json} document (the observe package's snapshots) as the tables of {@code
 * tether status}.
 */
final class StatusTables {
  private StatusTables() {}

  static String render(JsonNode status) {
    StringBuilder out = new StringBuilder();
    int n = 0;
    for (JsonNode client : status.path("clients")) {
      n++;
      out.append("client ")
          .append(n)
          .append(": retries ")
          .append(client.path("retries").asLong())
          .append(", refused by the retry budget ")
          .append(client.path("retryBudgetExhausted").asLong())
          .append('\n');
      TextTable nodes = new TextTable("NODE", "HEALTH", "IN FLIGHT", "LATENCY");
      for (JsonNode node : client.path("nodes")) {
        nodes.row(
            node.path("endpoint").asText(),
            node.path("health").asText(),
            node.path("inFlight").asInt(),
            latency(node.path("latencyMicros").asDouble()));
      }
      if (!nodes.isEmpty()) {
        out.append(nodes.render("  "));
      }
      TextTable connections =
          new TextTable("CONNECTION", "STATE", "AGE", "IN FLIGHT", "OK", "FAILED", "LAST ERROR");
      for (JsonNode c : sorted(client.path("connections"))) {
        connections.row(
            c.path("endpoint").asText(),
            c.path("state").asText(),
            age(c.path("ageMillis").asLong()),
            c.path("inFlight").asInt(),
            c.path("callsOk").asLong(),
            c.path("callsFailed").asLong(),
            c.path("lastError").isNull() ? "" : c.path("lastError").asText());
      }
      out.append(connections.isEmpty() ? "  no connections\n" : connections.render("  "));
    }
    TextTable servers = new TextTable("SERVER", "STATE", "CONNECTIONS", "IN FLIGHT", "SERVED");
    for (JsonNode s : status.path("servers")) {
      List<String> endpoints = new ArrayList<>();
      s.path("endpoints").forEach(e -> endpoints.add(e.asText()));
      servers.row(
          String.join(", ", endpoints),
          s.path("state").asText(),
          s.path("connections").asInt(),
          s.path("inFlight").asInt(),
          s.path("served").asLong());
    }
    if (!servers.isEmpty()) {
      out.append("servers:\n").append(servers.render("  "));
    }
    if (n == 0 && servers.isEmpty()) {
      out.append("the page observes no runtime and no server\n");
    }
    return out.toString();
  }

  private static List<JsonNode> sorted(JsonNode connections) {
    List<JsonNode> list = new ArrayList<>();
    connections.forEach(list::add);
    list.sort((a, b) -> a.path("endpoint").asText().compareTo(b.path("endpoint").asText()));
    return list;
  }

  private static String latency(double micros) {
    return micros <= 0
        ? "-"
        : micros < 10_000 ? Math.round(micros) + " µs" : Math.round(micros / 1000) + " ms";
  }

  private static String age(long millis) {
    long s = millis / 1000;
    return s < 60 ? s + " s" : s < 3600 ? s / 60 + " min" : s / 3600 + " h";
  }
}
