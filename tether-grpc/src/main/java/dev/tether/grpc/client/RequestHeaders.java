package dev.tether.grpc.client;

import dev.tether.grpc.GrpcHeaders;
import dev.tether.grpc.Gzip;
import dev.tether.spi.ClientWireProtocol;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The HEADERS that open a call's stream: gRPC's pseudo-headers and content type, the message
 * encodings (the request's, and gzip and identity accepted for the answer), what is left of the
 * call's deadline as {@code grpc-timeout}, the caller's metadata and the runtime's (the proxy's and
 * the client interceptor's, names lower-cased as HTTP/2 wants them).
 */
final class RequestHeaders {
  /** Header names the link writes itself; metadata under these names is not sent. */
  private static final Set<String> RESERVED =
      Set.of(
          "content-type",
          "te",
          "user-agent",
          GrpcHeaders.TIMEOUT,
          GrpcHeaders.ENCODING,
          GrpcHeaders.ACCEPT_ENCODING);

  private RequestHeaders() {}

  static Http2Headers of(
      ClientWireProtocol.Call call, Envelopes.Request request, String authority) {
    return of(call, request, authority, "http");
  }

  /** As above, with {@code :scheme} "https" on a connection under TLS. */
  static Http2Headers of(
      ClientWireProtocol.Call call, Envelopes.Request request, String authority, String scheme) {
    Http2Headers h =
        new DefaultHttp2Headers()
            .method("POST")
            .scheme(scheme)
            .path("/" + call.operation())
            .authority(authority);
    h.set("content-type", GrpcHeaders.CONTENT_TYPE).set("te", "trailers");
    h.set("user-agent", "tether-grpc");
    // Servers compress answers only for clients that say they read gzip.
    h.set(GrpcHeaders.ACCEPT_ENCODING, GrpcHeaders.ACCEPTED_ENCODINGS);
    if (RequestEncoding.isGzip(request.metadata())) {
      h.set(GrpcHeaders.ENCODING, Gzip.NAME);
    }
    long millis = call.remainingMillis();
    if (millis > 0) {
      h.set(GrpcHeaders.TIMEOUT, timeout(millis));
    }
    for (Map.Entry<CharSequence, CharSequence> m : request.metadata()) {
      addMetadata(h, m.getKey().toString(), m.getValue());
    }
    for (Map.Entry<String, String> m : call.metadata().entrySet()) {
      addMetadata(h, m.getKey().toLowerCase(Locale.ROOT), m.getValue());
    }
    return h;
  }

  private static void addMetadata(Http2Headers h, String name, CharSequence value) {
    if (!name.startsWith(":") && !RESERVED.contains(name)) {
      h.add(name, value);
    }
  }

  /** {@code grpc-timeout}: at most eight digits, so milliseconds while they fit, else seconds. */
  static String timeout(long millis) {
    return millis <= 99_999_999L ? millis + "m" : Math.min(millis / 1000, 99_999_999L) + "S";
  }
}
