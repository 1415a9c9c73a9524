package dev.tether.protocol;

import java.util.List;

/**
 * The server's answer to HELLO.
 *
 * @param serverId unique id of the server instance
 * @param serverVersion the server application's version, e.g. "2.1.0"
 * @param heartbeatMillis how often the server expects to hear from an idle client (its reader idle)
 * @param maxFrameSize the largest frame the server accepts, in bytes
 * @param maxConcurrentRequests how many requests may be in flight on this connection
 * @param primary the cluster primary in endpoint grammar, or "" when the server knows no cluster
 * @param alternates the alternates in failover order; empty when none
 * @param epoch protocol 1.4: the election the view comes from; 0 for none (then not on the wire)
 */
public record Welcome(
    String serverId,
    String serverVersion,
    int heartbeatMillis,
    int maxFrameSize,
    int maxConcurrentRequests,
    String primary,
    List<String> alternates,
    long epoch)
    implements Frame {

  public Welcome {
    alternates = List.copyOf(alternates);
    if (epoch < 0) {
      throw new IllegalArgumentException("WELCOME.epoch must not be negative, got " + epoch);
    }
  }

  /** A WELCOME whose view (if any) comes from no election, as a 1.0 to 1.3 server sends it. */
  public Welcome(
      String serverId,
      String serverVersion,
      int heartbeatMillis,
      int maxFrameSize,
      int maxConcurrentRequests,
      String primary,
      List<String> alternates) {
    this(
        serverId,
        serverVersion,
        heartbeatMillis,
        maxFrameSize,
        maxConcurrentRequests,
        primary,
        alternates,
        0);
  }

  /** This WELCOME for a peer older than 1.4, which reads no epoch. */
  public Welcome withoutEpoch() {
    return new Welcome(
        serverId,
        serverVersion,
        heartbeatMillis,
        maxFrameSize,
        maxConcurrentRequests,
        primary,
        alternates);
  }

  @Override
  public FrameType type() {
    return FrameType.WELCOME;
  }
}
