package dev.tether.client;

import dev.tether.IncompatibleServerException;
import dev.tether.TetherException;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.ProtocolVersion;

/**
 * Whether a connection can carry streams: a stream transport to a server of protocol 1.3 or later.
 */
final class StreamCapability {
  private StreamCapability() {}

  /**
   * Why a stream cannot go on {@code c}: a datagram transport, or a server older than 1.3; null
   * when it can, or when {@code c} closed meanwhile (a resuming stream's connection may close
   * between ready and this check).
   */
  static TetherException refusalOf(RequestChannel c) {
    if (!(c instanceof ClientConnection cc)) {
      return new TetherException(
          "streams need a stream transport (tcp, ssl, local), not " + c.transport());
    }
    FrameDecoder decoder = cc.channel.pipeline().get(FrameDecoder.class);
    if (decoder == null) {
      // Closed since it was ready, its handlers gone with it: nothing to refuse; what the stream
      // sends on it fails as on any closed connection, and the stream goes on from that failure.
      return null;
    }
    int minor = decoder.peerMinorVersion();
    if (minor < ProtocolVersion.FIRST_MINOR_OF_1_3) {
      return new IncompatibleServerException(
          "the server at "
              + cc.remoteAddress()
              + " speaks protocol 1."
              + minor
              + " and cannot open streams, which need 1."
              + ProtocolVersion.FIRST_MINOR_OF_1_3);
    }
    return null;
  }
}
