package dev.tether.zookeeper;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.Endpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/**
 * What one server registered for one service: its endpoints in grammar form (e.g. {@code "tcp -h
 * 127.0.0.1 -p 41234"}), its application version and its weight. Stored as JSON in the ephemeral
 * node {@code <root>/services/<service>/<serverId>}, so other languages can read it too.
 */
public record RegisteredServer(
    String serverId, List<String> endpoints, String version, int weight) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public RegisteredServer {
    Objects.requireNonNull(serverId, "serverId");
    endpoints = List.copyOf(endpoints);
    Objects.requireNonNull(version, "version");
  }

  /** The endpoints, parsed. */
  public List<Endpoint> parsedEndpoints() {
    return endpoints.stream().map(Endpoint::parse).toList();
  }

  byte[] toJson() {
    try {
      return JSON.writeValueAsBytes(this);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The record in {@code data}, or null when it is not one (a foreign or half-written node). */
  static RegisteredServer fromJsonOrNull(byte[] data) {
    if (data == null || data.length == 0) {
      return null;
    }
    try {
      RegisteredServer r = JSON.readValue(data, RegisteredServer.class);
      r.parsedEndpoints();
      return r;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
