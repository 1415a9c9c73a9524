package dev.tether;

import java.util.List;
import java.util.Objects;

/**
 * A cluster's failover order as a server knows it (the client-reroute behaviour): the primary, then
 * the alternates. Endpoints are in grammar form, e.g. {@code "tcp -h 127.0.0.1 -p 7001"}. Servers
 * send it in WELCOME; clients connect to the primary and fail over through the alternates in order.
 */
public record Topology(String primary, List<String> alternates) {
  public Topology {
    Objects.requireNonNull(primary, "primary");
    alternates = List.copyOf(alternates);
    Endpoint.parse(primary);
    for (String a : alternates) {
      Endpoint.parse(a);
    }
  }

  public static Topology of(String primary, List<String> alternates) {
    return new Topology(primary, alternates);
  }

  /** Primary first, then the alternates, parsed. */
  public List<Endpoint> failoverOrder() {
    java.util.ArrayList<Endpoint> out = new java.util.ArrayList<>();
    out.add(Endpoint.parse(primary));
    for (String a : alternates) {
      out.add(Endpoint.parse(a));
    }
    return List.copyOf(out);
  }
}
