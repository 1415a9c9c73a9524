package dev.tether.grpc.client;

import dev.tether.grpc.GrpcHeaders;
import dev.tether.grpc.Gzip;
import dev.tether.grpc.MessageDeframer;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * How an answer's messages are encoded, as its response HEADERS' {@code grpc-encoding} says: a
 * message flagged compressed is gzip-decompressed (within the receive limit) when they say gzip,
 * and an error otherwise; an encoding this channel does not know fails the call INTERNAL, naming
 * it, as grpc-java's own channel does. Messages not flagged pass as they are, at no cost.
 */
enum ResponseEncoding {
  /** No {@code grpc-encoding}, or "identity": no message may be flagged compressed. */
  IDENTITY,
  /** "gzip": messages flagged compressed are gzip. */
  GZIP;

  /**
   * The encoding the response {@code headers} (null: none came) name.
   *
   * @throws StatusException INTERNAL naming an encoding this channel does not decode
   */
  static ResponseEncoding of(Http2Headers headers) throws StatusException {
    CharSequence named = headers == null ? null : headers.get(GrpcHeaders.ENCODING);
    if (named == null || "identity".contentEquals(named)) {
      return IDENTITY;
    }
    if (Gzip.NAME.contentEquals(named)) {
      return GZIP;
    }
    throw Status.INTERNAL
        .withDescription(
            "the answer's grpc-encoding \""
                + named
                + "\" is not one this channel decodes ("
                + GrpcHeaders.ACCEPTED_ENCODINGS
                + ")")
        .asException();
  }

  /**
   * The message as the service wrote it.
   *
   * @throws StatusException INTERNAL for a compressed message without gzip or bad gzip,
   *     RESOURCE_EXHAUSTED when it inflates beyond {@code maxSize}
   */
  byte[] decode(MessageDeframer.Message message, int maxSize) throws StatusException {
    if (!message.compressed()) {
      return message.bytes();
    }
    if (this != GZIP) {
      throw Status.INTERNAL
          .withDescription("a compressed message in an answer without grpc-encoding gzip")
          .asException();
    }
    try {
      return Gzip.decompress(message.bytes(), maxSize);
    } catch (StatusRuntimeException bad) {
      throw bad.getStatus().asException();
    }
  }
}
