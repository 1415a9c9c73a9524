package dev.tether.protocol;

import java.util.List;

/**
 * Protocol 1.1: the server's cluster view changed while the connection was open; it replaces the
 * view of WELCOME (or of the previous TOPOLOGY). Same fields, same layout, as WELCOME's tail.
 *
 * @param primary the cluster primary in endpoint grammar, or "" when the server knows no cluster
 * @param alternates the alternates in failover order; empty when none
 * @param epoch protocol 1.4: the election the view comes from; 0 for none (then not on the wire)
 */
public record TopologyUpdate(String primary, List<String> alternates, long epoch) implements Frame {

  public TopologyUpdate {
    alternates = List.copyOf(alternates);
    if (epoch < 0) {
      throw new IllegalArgumentException("TOPOLOGY.epoch must not be negative, got " + epoch);
    }
  }

  /** A view outside any election, as a 1.1 to 1.3 peer sends it. */
  public TopologyUpdate(String primary, List<String> alternates) {
    this(primary, alternates, 0);
  }

  /** The view a WELCOME announced, as a TOPOLOGY frame would carry it. */
  public static TopologyUpdate of(Welcome welcome) {
    return new TopologyUpdate(welcome.primary(), welcome.alternates(), welcome.epoch());
  }

  @Override
  public FrameType type() {
    return FrameType.TOPOLOGY;
  }
}
