package dev.tether.grpc.client;

import dev.tether.grpc.GrpcHeaders;
import dev.tether.grpc.Gzip;
import dev.tether.spi.ClientWireProtocol;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The HEADERS that open a call's stream: gRPC's pseudo-headers and content type, the message
 * encodings (the request's, and gzip and identity accepted for the answer), what is left of the
 * call's deadline as {@code grpc-timeout}, the caller's metadata and the runtime's (the proxy's and
 * the client interceptor's, names lower-cased as HTTP/2 wants them).
 */
final class RequestHeaders {
  /** Header names the link writes itself; metadata under these names is not sent. */
  private static final Set<AsciiString> RESERVED =
      Set.of(
          AsciiString.of("content-type"),
          AsciiString.of("te"),
          AsciiString.of("user-agent"),
          AsciiString.of(GrpcHeaders.TIMEOUT),
          AsciiString.of(GrpcHeaders.ENCODING),
          AsciiString.of(GrpcHeaders.ACCEPT_ENCODING));

  private static final AsciiString TIMEOUT = AsciiString.cached(GrpcHeaders.TIMEOUT);

  private static final Map.Entry<CharSequence, CharSequence> POST =
      HeaderList.entry(Http2Headers.PseudoHeaderName.METHOD.value(), AsciiString.cached("POST"));
  private static final Map.Entry<CharSequence, CharSequence> HTTP =
      HeaderList.entry(Http2Headers.PseudoHeaderName.SCHEME.value(), AsciiString.cached("http"));
  private static final Map.Entry<CharSequence, CharSequence> HTTPS =
      HeaderList.entry(Http2Headers.PseudoHeaderName.SCHEME.value(), AsciiString.cached("https"));

  /** The headers every call sends after its pseudo-headers, in this order. */
  private static final List<Map.Entry<CharSequence, CharSequence>> CONSTANT =
      List.of(
          constant("content-type", GrpcHeaders.CONTENT_TYPE),
          constant("te", "trailers"),
          constant("user-agent", "tether-grpc"),
          // Servers compress answers only for clients that say they read gzip.
          constant(GrpcHeaders.ACCEPT_ENCODING, GrpcHeaders.ACCEPTED_ENCODINGS));

  private static final Map.Entry<CharSequence, CharSequence> GZIP =
      constant(GrpcHeaders.ENCODING, Gzip.NAME);

  /** Operations' {@code :path}s, made once: a program calls few methods, each many times. */
  private static final Map<String, Map.Entry<CharSequence, CharSequence>> PATHS =
      new ConcurrentHashMap<>();

  /** Paths kept at most; a program making up method names cannot grow the map without end. */
  private static final int MAX_PATHS = 4096;

  private RequestHeaders() {}

  /**
   * The HEADERS of {@code call} to {@code authority} ({@link #authority}), under TLS or not; the
   * entries the same for every call are shared, not rebuilt. Not validated again: the envelope's
   * metadata came from gRPC's keys, and the runtime's names are checked here, so a name HTTP/2
   * forbids never reaches the wire.
   */
  static Http2Headers of(
      ClientWireProtocol.Call call,
      Envelopes.Request request,
      boolean gzip,
      long deadlineMillis,
      Map.Entry<CharSequence, CharSequence> authority,
      boolean tls) {
    Http2Headers metadata = request.metadata();
    Map<String, String> runtime = call.metadata();
    HeaderList h = new HeaderList(10 + metadata.size() + runtime.size());
    h.append(POST).append(tls ? HTTPS : HTTP).append(pathOf(call.operation())).append(authority);
    for (Map.Entry<CharSequence, CharSequence> c : CONSTANT) {
      h.append(c);
    }
    if (gzip) {
      h.append(GZIP);
    }
    if (deadlineMillis > 0) {
      h.append(TIMEOUT, timeout(deadlineMillis));
    }
    for (Map.Entry<CharSequence, CharSequence> m : metadata) {
      addMetadata(h, AsciiString.of(m.getKey()), m.getValue());
    }
    if (!runtime.isEmpty()) {
      for (Map.Entry<String, String> m : runtime.entrySet()) {
        addMetadata(h, AsciiString.of(m.getKey().toLowerCase(Locale.ROOT)), m.getValue());
      }
    }
    return h;
  }

  /** The {@code :authority} entry of a connection's calls, made once per connection. */
  static Map.Entry<CharSequence, CharSequence> authority(String hostAndPort) {
    return HeaderList.entry(
        Http2Headers.PseudoHeaderName.AUTHORITY.value(), new AsciiString(hostAndPort));
  }

  private static Map.Entry<CharSequence, CharSequence> constant(String name, String value) {
    return HeaderList.entry(AsciiString.cached(name), AsciiString.cached(value));
  }

  private static Map.Entry<CharSequence, CharSequence> pathOf(String operation) {
    Map.Entry<CharSequence, CharSequence> path = PATHS.get(operation);
    if (path == null) {
      path =
          HeaderList.entry(
              Http2Headers.PseudoHeaderName.PATH.value(), new AsciiString("/" + operation));
      if (PATHS.size() < MAX_PATHS) {
        PATHS.put(operation, path);
      }
    }
    return path;
  }

  /** Adds one metadata header unless the link writes that name itself or gRPC forbids it. */
  private static void addMetadata(HeaderList h, AsciiString name, CharSequence value) {
    if (GrpcHeaders.isMetadataName(name) && !RESERVED.contains(name)) {
      h.append(name, value);
    }
  }

  /** {@code grpc-timeout}: at most eight digits, so milliseconds while they fit, else seconds. */
  static String timeout(long millis) {
    return millis <= 99_999_999L ? millis + "m" : Math.min(millis / 1000, 99_999_999L) + "S";
  }
}
