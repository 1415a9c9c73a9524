package dev.tether.grpc.client;

import dev.tether.grpc.GrpcHeaders;
import dev.tether.grpc.Gzip;
import dev.tether.spi.ClientWireProtocol;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
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

  private static final AsciiString POST = AsciiString.cached("POST");
  static final AsciiString HTTP = AsciiString.cached("http");
  static final AsciiString HTTPS = AsciiString.cached("https");
  private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
  private static final AsciiString GRPC = AsciiString.cached(GrpcHeaders.CONTENT_TYPE);
  private static final AsciiString TE = AsciiString.cached("te");
  private static final AsciiString TRAILERS = AsciiString.cached("trailers");
  private static final AsciiString USER_AGENT = AsciiString.cached("user-agent");
  private static final AsciiString AGENT = AsciiString.cached("tether-grpc");
  private static final AsciiString TIMEOUT = AsciiString.cached(GrpcHeaders.TIMEOUT);
  private static final AsciiString ACCEPT_ENCODING =
      AsciiString.cached(GrpcHeaders.ACCEPT_ENCODING);
  private static final AsciiString ACCEPTED_ENCODINGS =
      AsciiString.cached(GrpcHeaders.ACCEPTED_ENCODINGS);
  private static final AsciiString ENCODING = AsciiString.cached(GrpcHeaders.ENCODING);
  private static final AsciiString GZIP = AsciiString.cached(Gzip.NAME);

  /** Operations' {@code :path}s, made once: a program calls few methods, each many times. */
  private static final Map<String, AsciiString> PATHS = new ConcurrentHashMap<>();

  /** Paths kept at most; a program making up method names cannot grow the map without end. */
  private static final int MAX_PATHS = 4096;

  private RequestHeaders() {}

  /**
   * The HEADERS of {@code call} to {@code authority}; the constant ones are shared, not rebuilt.
   * Not validated again: the envelope's metadata came from gRPC's keys, and the runtime's names are
   * checked here, so a name HTTP/2 forbids never reaches the wire.
   */
  static Http2Headers of(
      ClientWireProtocol.Call call,
      Envelopes.Request request,
      boolean gzip,
      long deadlineMillis,
      AsciiString authority,
      AsciiString scheme) {
    Http2Headers h =
        new DefaultHttp2Headers(false, 16)
            .method(POST)
            .scheme(scheme)
            .path(pathOf(call.operation()))
            .authority(authority);
    h.add(CONTENT_TYPE, GRPC).add(TE, TRAILERS).add(USER_AGENT, AGENT);
    // Servers compress answers only for clients that say they read gzip.
    h.add(ACCEPT_ENCODING, ACCEPTED_ENCODINGS);
    if (gzip) {
      h.add(ENCODING, GZIP);
    }
    if (deadlineMillis > 0) {
      h.add(TIMEOUT, timeout(deadlineMillis));
    }
    for (Map.Entry<CharSequence, CharSequence> m : request.metadata()) {
      addMetadata(h, AsciiString.of(m.getKey()), m.getValue());
    }
    Map<String, String> runtime = call.metadata();
    if (!runtime.isEmpty()) {
      for (Map.Entry<String, String> m : runtime.entrySet()) {
        addMetadata(h, AsciiString.of(m.getKey().toLowerCase(Locale.ROOT)), m.getValue());
      }
    }
    return h;
  }

  private static AsciiString pathOf(String operation) {
    AsciiString path = PATHS.get(operation);
    if (path == null) {
      path = new AsciiString("/" + operation);
      if (PATHS.size() < MAX_PATHS) {
        PATHS.put(operation, path);
      }
    }
    return path;
  }

  /** Adds one metadata header unless the link writes that name itself or gRPC forbids it. */
  private static void addMetadata(Http2Headers h, AsciiString name, CharSequence value) {
    if (GrpcHeaders.isMetadataName(name) && !RESERVED.contains(name)) {
      h.add(name, value);
    }
  }

  /** {@code grpc-timeout}: at most eight digits, so milliseconds while they fit, else seconds. */
  static String timeout(long millis) {
    return millis <= 99_999_999L ? millis + "m" : Math.min(millis / 1000, 99_999_999L) + "S";
  }
}
