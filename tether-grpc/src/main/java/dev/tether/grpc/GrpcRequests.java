package dev.tether.grpc;

import io.grpc.Metadata;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns each new request stream of a connection into a {@link GrpcServerCall} of the method its
 * path names, or answers it at once: an HTTP error for what is no gRPC request, a Trailers-Only
 * status for an unknown method or encoding or a malformed timeout. On the connection's event loop.
 */
final class GrpcRequests {
  private static final Logger log = LoggerFactory.getLogger(GrpcRequests.class);

  private final GrpcConnection connection;
  private final Map<String, ServerMethodDefinition<?, ?>> methods;
  private final int maxInboundMessageSize;

  GrpcRequests(
      GrpcConnection connection,
      Map<String, ServerMethodDefinition<?, ?>> methods,
      int maxInboundMessageSize) {
    this.connection = connection;
    this.methods = methods;
    this.maxInboundMessageSize = maxInboundMessageSize;
  }

  /** A new request stream: the method it names, if it is a gRPC request for a known method. */
  void open(Http2Stream stream, Http2Headers headers, boolean endOfStream) {
    CharSequence path = headers.path();
    String name = path != null && path.length() > 1 ? path.toString().substring(1) : "";
    if (!"POST".contentEquals(headers.method() == null ? "" : headers.method())) {
      httpError(
          stream,
          endOfStream,
          "405",
          Status.INTERNAL,
          "gRPC requires POST, not " + headers.method());
      ServedAtOnce.count(connection, name, headers, "HTTP_405");
      return;
    }
    CharSequence contentType = headers.get("content-type");
    if (!GrpcHeaders.isGrpc(contentType)) {
      httpError(
          stream, endOfStream, "415", Status.INTERNAL, "unsupported content-type: " + contentType);
      ServedAtOnce.count(connection, name, headers, "HTTP_415");
      return;
    }
    if (path == null || path.length() < 2 || path.charAt(0) != '/') {
      // Not a request for any method: without this check the first character was cut blindly, so
      // a path without its slash still named a method (grpc-java answers it the same way).
      httpError(
          stream, endOfStream, "404", Status.UNIMPLEMENTED, "expected a path /service/method");
      ServedAtOnce.count(connection, name, headers, "HTTP_404");
      return;
    }
    ServerMethodDefinition<?, ?> method = methods.get(name);
    if (method == null) {
      method = TetherMethods.find(connection.host(), name);
    }
    if (method == null) {
      trailersOnly(
          stream,
          endOfStream,
          Status.UNIMPLEMENTED.withDescription("Method not found: " + name),
          new Metadata());
      ServedAtOnce.count(connection, name, headers, Status.Code.UNIMPLEMENTED.name());
      return;
    }
    CharSequence encoding = headers.get(GrpcHeaders.ENCODING);
    boolean gzip = encoding != null && Gzip.NAME.contentEquals(encoding);
    if (encoding != null && !gzip && !"identity".contentEquals(encoding)) {
      Metadata accept = new Metadata();
      accept.put(
          Metadata.Key.of(GrpcHeaders.ACCEPT_ENCODING, Metadata.ASCII_STRING_MARSHALLER),
          GrpcHeaders.ACCEPTED_ENCODINGS);
      trailersOnly(
          stream,
          endOfStream,
          Status.UNIMPLEMENTED.withDescription("unsupported grpc-encoding: " + encoding),
          accept);
      ServedAtOnce.count(connection, name, headers, Status.Code.UNIMPLEMENTED.name());
      return;
    }
    long timeoutNanos;
    try {
      timeoutNanos = GrpcHeaders.timeoutNanos(headers.get(GrpcHeaders.TIMEOUT));
    } catch (IllegalArgumentException malformed) {
      trailersOnly(
          stream, endOfStream, Status.INTERNAL.withDescription(malformed.getMessage()), null);
      ServedAtOnce.count(connection, name, headers, Status.Code.INTERNAL.name());
      return;
    }
    GrpcCallContext context =
        new GrpcCallContext(
            method.getMethodDescriptor(),
            headers,
            connection.context().channel(),
            connection.host().ticker(),
            timeoutNanos);
    GrpcServerCall<?, ?> call =
        new GrpcServerCall<>(
            connection,
            context,
            connection.hosted().callStarted(context),
            stream,
            method,
            headers.authority() == null ? null : headers.authority().toString(),
            new GrpcServerCall.Encodings(
                gzip, Gzip.acceptedBy(headers.get(GrpcHeaders.ACCEPT_ENCODING))),
            maxInboundMessageSize);
    connection.attach(stream, call);
    call.start(GrpcHeaders.toMetadata(headers), timeoutNanos);
    if (endOfStream) {
      call.inbound(null, true);
    }
  }

  /** Answers a stream that is not a gRPC call with an HTTP error (gRPC clients read its status). */
  private void httpError(
      Http2Stream stream, boolean endOfStream, String httpStatus, Status grpcStatus, String why) {
    log.debug(
        "answering HTTP {} to {}: {}",
        httpStatus,
        connection.context().channel().remoteAddress(),
        why);
    Http2Headers h = new DefaultHttp2Headers().status(httpStatus).set("content-type", "text/plain");
    GrpcHeaders.addStatus(h, grpcStatus.withDescription(why));
    finish(stream, h, endOfStream);
  }

  /** Answers a stream at once with one HEADERS frame that holds the status (Trailers-Only). */
  private void trailersOnly(
      Http2Stream stream, boolean endOfStream, Status status, Metadata trailers) {
    Http2Headers h = GrpcHeaders.addStatus(GrpcHeaders.responseHeaders(), status);
    if (trailers != null) {
      GrpcHeaders.addMetadata(h, trailers);
    }
    finish(stream, h, endOfStream);
  }

  /** Writes the last headers; a client still sending is told to stop, without error. */
  private void finish(Http2Stream stream, Http2Headers last, boolean clientDone) {
    connection.writeHeaders(stream, last, true);
    if (!clientDone) {
      connection.reset(stream, Http2Error.NO_ERROR);
    }
    connection.flush();
  }
}
