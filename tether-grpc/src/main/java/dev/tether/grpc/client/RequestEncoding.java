package dev.tether.grpc.client;

import dev.tether.grpc.GrpcHeaders;
import dev.tether.grpc.Gzip;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * How a call's request messages are encoded, as its {@code CallOptions.withCompression} names it:
 * identity (none, or "identity") or gzip, each message compressed on the caller's thread and
 * flagged so on the wire, the stream's HEADERS saying {@code grpc-encoding: gzip}.
 */
final class RequestEncoding {
  static final RequestEncoding IDENTITY = new RequestEncoding(false);
  static final RequestEncoding GZIP = new RequestEncoding(true);

  private final boolean gzip;

  private RequestEncoding(boolean gzip) {
    this.gzip = gzip;
  }

  /** The encoding {@code compressor} names, or null when this channel has none by that name. */
  static RequestEncoding named(String compressor) {
    if (compressor == null || "identity".equals(compressor)) {
      return IDENTITY;
    }
    return Gzip.NAME.equals(compressor) ? GZIP : null;
  }

  /** Whether the request's envelope headers say its messages are gzip (the link reads this). */
  static boolean isGzip(Http2Headers requestMetadata) {
    CharSequence encoding = requestMetadata.get(GrpcHeaders.ENCODING);
    return encoding != null && Gzip.NAME.contentEquals(encoding);
  }

  /** One message as it goes on the wire (after its flag). */
  byte[] encode(byte[] message) {
    return gzip ? Gzip.compress(message) : message;
  }

  /** Says this encoding in the headers the request's envelope carries to the link. */
  Http2Headers announce(Http2Headers metadata) {
    metadata.remove(GrpcHeaders.ENCODING);
    if (gzip) {
      metadata.set(GrpcHeaders.ENCODING, Gzip.NAME);
    }
    return metadata;
  }
}
