package dev.tether.client;

import dev.tether.ProtocolException;
import dev.tether.TetherException;
import dev.tether.internal.IntMap;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamItem;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The streams one client connection carries, by the id each has on it, and the hand-over of a
 * stream whose opening (or RESUME) the server accepted: that answer and the items behind it are
 * read on this connection's loop, so the stream is in the table before its first item is. Frames
 * for a stream no longer here (it ended, or moved on) are dropped. Runs on the connection's loop.
 */
final class ClientStreams {
  /**
   * The streams whose opening or RESUME is on its way, by the invocation that carries it (it may be
   * retried on another connection, which then hands the stream over).
   */
  private static final Map<CallAttempt, CarriedStream> OPENINGS = new ConcurrentHashMap<>();

  private final ClientConnection connection;
  private final IntMap<CarriedStream> byId = new IntMap<>();

  ClientStreams(ClientConnection connection) {
    this.connection = connection;
  }

  /** {@code opening} carries {@code stream}'s opening or RESUME from now until it is answered. */
  static void awaitAnswer(CallAttempt opening, CarriedStream stream) {
    OPENINGS.put(opening, stream);
  }

  /** The opening ended without the stream (failed, or cancelled): nothing waits for its answer. */
  static void forgetOpening(CallAttempt opening) {
    OPENINGS.remove(opening);
  }

  /**
   * The server answered {@code opening}, which carried a stream: OK hands the stream to this
   * connection.
   */
  void answered(CallAttempt opening, int streamId, Status status, byte[] body) {
    if (status != Status.OK) {
      return; // the invocation decides: retried, or the stream fails with its failure
    }
    CarriedStream stream = OPENINGS.remove(opening);
    if (stream != null) {
      byId.put(streamId, stream);
      stream.accepted(connection, this, streamId, body);
    } else {
      // The subscriber cancelled while the opening was on its way, too late to take it back: the
      // server's stream is let go as soon as it exists.
      connection.channel.writeAndFlush(new Cancel(streamId), connection.channel.voidPromise());
    }
  }

  /**
   * A stream frame or a CANCEL from the server; a frame for a stream no longer here means nothing.
   */
  void onFrame(Frame frame) {
    CarriedStream stream = byId.get(frame.requestId());
    if (stream == null) {
      return;
    }
    String refusal = frame instanceof StreamItem item ? stream.replies().refusal(item) : null;
    if (refusal != null) {
      // Kept nowhere: the server broke the protocol, and the connection ends as for a bad frame.
      connection
          .channel
          .pipeline()
          .get(FrameDecoder.class)
          .failAfterDecoding(connection.channel, new ProtocolException(refusal));
      return;
    }
    stream.onFrame(frame, this);
  }

  /** A stream left this connection (ended, or resumed elsewhere); from any thread. */
  void forget(int streamId) {
    connection.onLoop(
        () -> {
          byId.remove(streamId);
          connection.closeIfDrained();
        });
  }

  boolean isEmpty() {
    return byId.isEmpty();
  }

  int size() {
    return byId.size();
  }

  /**
   * This side drains the connection. While the runtime runs (a rotation past the maximum age, an
   * extra connection let go) each stream moves to the key's next connection by a RESUME, as after a
   * loss, so the server's stream goes on unbroken; when the runtime closes, each stream ends, the
   * server is told, and its subscriber gets {@code StreamLostException} with what it was delivered.
   */
  void leave(String why) {
    if (!connection.host.isClosing()) {
      connectionLost(new TetherException(why));
      return;
    }
    for (CarriedStream s : byId.values()) {
      s.closeBySelf(why);
    }
  }

  /** The connection closed: each stream tries to resume on a new one, or is lost. */
  void connectionLost(Throwable why) {
    for (CarriedStream s : byId.removeAll()) {
      s.linkLost(this, why);
    }
  }
}
