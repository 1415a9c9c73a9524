package dev.tether.client;

/**
 * A stream connection that can share its key's load with extra connections ({@link
 * ExtraConnections}): it says when it has room, hands the calls it could not start to a sibling,
 * and spreads new calls over the lanes its key publishes. Tether's own connections and those of
 * another wire protocol both are lanes, so an HTTP/2 server's SETTINGS_MAX_CONCURRENT_STREAMS opens
 * extra connections as Tether's in-flight limit does.
 */
interface Lane extends RequestChannel {
  /** Sends on this connection, whatever its siblings carry; any thread. */
  void enqueue(CallAttempt call);

  /** Moves every call waiting here for room to {@code other} (any thread); none was sent here. */
  void handOverBacklog(Lane other);

  /** True while another call would start here at once; a racy read, for placing calls. */
  boolean hasRoom();

  /** This connection was opened beside its key's own, under load; before {@link #connect()}. */
  void markExtra();

  /** Spreads new calls over {@code all} (this key's connections), or over this one alone (null). */
  void spreadOver(Lane[] all);
}
