package dev.tether.client;

import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.EncodedNames;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Request;
import io.netty.buffer.ByteBuf;
import java.util.Map;

/**
 * A call's REQUEST as the wire carries it: written straight into a connection's buffer on the hot
 * path, or as a {@link Request} value for datagrams and batches. The headers are the current
 * attempt's, and the deadline is what is left of the call's when the frame is made.
 */
final class RequestWire {
  private RequestWire() {}

  /**
   * Appends {@code inv}'s REQUEST frame; no Request object is built. The body is compressed when
   * the proxy asks for it ({@code -z} or {@code withCompression(true)}) and {@code bodies} says the
   * server negotiated it and the body is worth it. {@code names} is the connection's cache of the
   * names' wire form.
   */
  static void encode(Invocation inv, ByteBuf out, BodyCompression bodies, EncodedNames names) {
    ProxySettings settings = inv.settings();
    byte[] wire = inv.body;
    int wireFlags = inv.flags();
    if (settings.compress()) {
      byte[] packed = bodies.compressIfWorthIt(inv.body);
      if (packed != null) {
        wire = packed;
        wireFlags |= Request.COMPRESSED;
      }
    }
    FrameWriter.encodeRequest(
        inv.requestId,
        wireFlags,
        settings.identity(),
        inv.operation,
        inv.remainingMillis(),
        metadata(inv),
        wire,
        names,
        out);
  }

  /** {@code inv}'s REQUEST as a value, its body uncompressed. */
  static Request toRequest(Invocation inv) {
    return new Request(
        inv.requestId,
        inv.flags(),
        inv.settings().identity(),
        inv.operation,
        inv.remainingMillis(),
        metadata(inv),
        inv.body);
  }

  /** The current attempt's headers: the proxy's, unless the client interceptor added to them. */
  private static Map<String, String> metadata(Invocation inv) {
    CallExtras e = inv.extrasIfAny();
    Map<String, String> added = e == null ? null : e.attemptMetadata();
    return added == null ? inv.settings().metadata() : added;
  }
}
