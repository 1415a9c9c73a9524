package dev.tether;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A cluster's failover order as a server knows it (the client-reroute behaviour): the primary, then
 * the alternates. Endpoints are in grammar form, e.g. {@code "tcp -h 127.0.0.1 -p 7001"}. Servers
 * send it in WELCOME; clients connect to the primary and fail over through the alternates in order.
 *
 * <p>The epoch says which election the view comes from: a number that only grows from one elected
 * primary to the next (a ZooKeeper registry takes it from ZooKeeper), 0 for a view no election
 * made. A client never trades its view for one of a smaller epoch, so a deposed primary's late
 * announcements cannot draw it back.
 *
 * @param epoch the election this view comes from; 0 for none, never negative
 */
public record Topology(String primary, List<String> alternates, long epoch) {
  public Topology {
    Objects.requireNonNull(primary, "primary");
    alternates = List.copyOf(alternates);
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must not be negative, got " + epoch);
    }
    Endpoint.parse(primary);
    for (String a : alternates) {
      Endpoint.parse(a);
    }
  }

  /** A view outside any election (epoch 0). */
  public Topology(String primary, List<String> alternates) {
    this(primary, alternates, 0);
  }

  public static Topology of(String primary, List<String> alternates) {
    return new Topology(primary, alternates);
  }

  /** The same view, from the election {@code epoch}. */
  public Topology withEpoch(long epoch) {
    return new Topology(primary, alternates, epoch);
  }

  /** Primary first, then the alternates, parsed. */
  public List<Endpoint> failoverOrder() {
    List<Endpoint> out = new ArrayList<>();
    out.add(Endpoint.parse(primary));
    for (String a : alternates) {
      out.add(Endpoint.parse(a));
    }
    return List.copyOf(out);
  }
}
