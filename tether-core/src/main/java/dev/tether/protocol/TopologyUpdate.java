package dev.tether.protocol;

import java.util.List;

/**
 * Protocol 1.1: the server's cluster view changed while the connection was open; it replaces the
 * view of WELCOME (or of the previous TOPOLOGY). Same fields, same layout, as WELCOME's tail.
 *
 * @param primary the cluster primary in endpoint grammar, or "" when the server knows no cluster
 * @param alternates the alternates in failover order; empty when none
 */
public record TopologyUpdate(String primary, List<String> alternates) implements Frame {

  public TopologyUpdate {
    alternates = List.copyOf(alternates);
  }

  /** The view a WELCOME announced, as a TOPOLOGY frame would carry it. */
  public static TopologyUpdate of(Welcome welcome) {
    return new TopologyUpdate(welcome.primary(), welcome.alternates());
  }

  @Override
  public FrameType type() {
    return FrameType.TOPOLOGY;
  }
}
