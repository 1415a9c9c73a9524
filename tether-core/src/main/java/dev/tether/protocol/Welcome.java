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
 */
public record Welcome(
    String serverId,
    String serverVersion,
    int heartbeatMillis,
    int maxFrameSize,
    int maxConcurrentRequests,
    String primary,
    List<String> alternates)
    implements Frame {

  public Welcome {
    alternates = List.copyOf(alternates);
  }

  @Override
  public FrameType type() {
    return FrameType.WELCOME;
  }
}
