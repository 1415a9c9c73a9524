package dev.tether.grpc.client;

import dev.tether.grpc.GrpcHeaders;
import io.grpc.Status;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;

/**
 * The trailers a gRPC answer lacked: what an HTTP status without {@code grpc-status} means (gRPC's
 * own table of HTTP to gRPC codes), or a status the link decided itself (an unreadable message).
 */
final class StatusOfHttp {
  /** Hashed once: every answer's headers are asked for it. */
  private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");

  private StatusOfHttp() {}

  /** Trailers for an answer that ended without {@code grpc-status}, from its HTTP status. */
  static Http2Headers trailersFor(Http2Headers headers) {
    CharSequence http = headers == null ? null : headers.status();
    if (http == null) {
      return trailersOf(Status.INTERNAL.withDescription("the answer had no :status"));
    }
    Status status = ofHttp(http.toString());
    if (status.isOk()) {
      status = Status.INTERNAL.withDescription("the answer ended without grpc-status");
    }
    return trailersOf(status);
  }

  /**
   * Why response headers cannot open a gRPC answer, or null when they can: no {@code :status} is
   * INTERNAL; a content-type other than gRPC's is what its HTTP status means (UNKNOWN for 200), as
   * on grpc-java's channel, whatever {@code grpc-status} follows.
   */
  static Status invalid(Http2Headers headers) {
    CharSequence http = headers == null ? null : headers.status();
    if (http == null) {
      return Status.INTERNAL.withDescription("the answer had no :status");
    }
    CharSequence contentType = headers.get(CONTENT_TYPE);
    if (GrpcHeaders.isGrpc(contentType)) {
      return null;
    }
    Status status = ofHttp(http.toString());
    return (status.isOk() ? Status.UNKNOWN : status)
        .withDescription(
            "invalid content-type " + contentType + " (HTTP status " + http + "), not gRPC's");
  }

  /** gRPC's mapping of an HTTP status that came without {@code grpc-status}. */
  static Status ofHttp(String http) {
    Status.Code code =
        switch (http) {
          case "200" -> Status.Code.OK;
          case "400" -> Status.Code.INTERNAL;
          case "401" -> Status.Code.UNAUTHENTICATED;
          case "403" -> Status.Code.PERMISSION_DENIED;
          case "404" -> Status.Code.UNIMPLEMENTED;
          case "429", "502", "503", "504" -> Status.Code.UNAVAILABLE;
          default -> Status.Code.UNKNOWN;
        };
    return code == Status.Code.OK
        ? Status.OK
        : Status.fromCode(code).withDescription("HTTP status " + http + " without grpc-status");
  }

  /** {@code status} as trailers: its code and, when it has one, its description. */
  static Http2Headers trailersOf(Status status) {
    Http2Headers t = new DefaultHttp2Headers();
    t.set(GrpcHeaders.STATUS, Integer.toString(status.getCode().value()));
    if (status.getDescription() != null) {
      t.set(GrpcHeaders.MESSAGE, GrpcHeaders.percentEncode(status.getDescription()));
    }
    return t;
  }
}
