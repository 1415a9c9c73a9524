package dev.tether.client;

import dev.tether.ProtocolException;
import dev.tether.Topology;
import java.util.List;
import java.util.Objects;

/**
 * The latest cluster view one server announced on its connection: WELCOME's, replaced by each
 * TOPOLOGY frame; null while it announced none. Written on the connection's event loop; read from
 * any thread (the runtime applies it on its control executor).
 */
final class AnnouncedTopology {
  private volatile Topology current;

  /** The latest view, or null when the server announced none. */
  Topology current() {
    return current;
  }

  /**
   * Replaces the view with the one a frame announced ({@code ""} primary: none) from the election
   * {@code epoch} (0: none); true when it changed. The server's word stands even when its epoch is
   * older: the runtime's views decide which server to believe.
   *
   * @throws ProtocolException when the view is not in endpoint grammar
   */
  boolean replaceWith(String primary, List<String> alternates, long epoch, String frame) {
    Topology next;
    try {
      next = primary.isEmpty() ? null : new Topology(primary, alternates, epoch);
    } catch (RuntimeException e) {
      throw new ProtocolException(
          frame + ": cluster view is not in endpoint grammar: " + e.getMessage());
    }
    if (Objects.equals(next, current)) {
      return false;
    }
    current = next;
    return true;
  }

  /** The view in words, for the TOPOLOGY_CHANGED event. */
  String describe() {
    Topology t = current;
    if (t == null) {
      return "no cluster view";
    }
    String view = "primary " + t.primary() + ", alternates " + t.alternates();
    return t.epoch() == 0 ? view : view + ", epoch " + t.epoch();
  }
}
