package dev.tether.server;

import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one server connection reads: not before the server admitted it, and not while the channel
 * is unwritable (the client leaves replies unread), so a slow reader cannot make the server queue
 * replies without bound; a refused connection reads on, to see its client close. What TLS reads on
 * its own before admission is held here until the server decided. Lives on the connection's loop,
 * except {@link #closeUntilAdmitted()}, called by the channel's initializer.
 */
final class ReadGate {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");

  private final Channel channel;

  /** True from {@link #closeUntilAdmitted()} until {@link #admissionDecided()}. */
  private boolean awaitingAdmission;

  /** Non-null only while awaiting admission once a message arrived. */
  private List<Object> held;

  ReadGate(Channel channel) {
    this.channel = channel;
  }

  /** Nothing is read until {@link #admissionDecided()}. */
  void closeUntilAdmitted() {
    awaitingAdmission = true;
    channel.config().setAutoRead(false);
  }

  /**
   * True when {@code msg} arrived before admission and is held for later; false to handle it now.
   */
  boolean holdIfAwaiting(Object msg) {
    if (!awaitingAdmission) {
      return false;
    }
    if (held == null) {
      held = new ArrayList<>(2);
    }
    held.add(msg);
    return true;
  }

  /**
   * The server decided: returns what arrived meanwhile, in order, to be handled as if it came now.
   */
  List<Object> admissionDecided() {
    awaitingAdmission = false;
    List<Object> arrived = held;
    held = null;
    return arrived == null ? List.of() : arrived;
  }

  /** Opens or closes reading for the connection as it is now; {@code refused}: it reads on. */
  void update(boolean refused) {
    boolean read = refused || (!awaitingAdmission && channel.isWritable());
    if (channel.config().isAutoRead() != read) {
      log.debug("{} reading from {}", read ? "resuming" : "pausing", channel.remoteAddress());
      channel.config().setAutoRead(read);
    }
  }

  /** Reading is paused now (for writability or before admission). */
  boolean isPaused() {
    return !channel.config().isAutoRead();
  }
}
