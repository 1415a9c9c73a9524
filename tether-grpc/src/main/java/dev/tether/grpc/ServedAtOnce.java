package dev.tether.grpc;

import io.grpc.MethodDescriptor;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * A request stream the server answers at once, before any method runs (an unknown service or
 * method, a foreign content-type, a malformed timeout): it still counts as a call the connection
 * served, ended with its failure, so {@code server.status()} and the meters see clients calling
 * what is not there instead of nothing. On the connection's event loop.
 */
final class ServedAtOnce {
  private ServedAtOnce() {}

  /**
   * Counts the stream's call in and out at once; {@code status} is how it ended ({@code
   * "UNIMPLEMENTED"}, {@code "HTTP_415"}...).
   */
  static void count(GrpcConnection connection, String path, Http2Headers headers, String status) {
    MethodDescriptor<byte[], byte[]> named =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNKNOWN)
            .setFullMethodName(path)
            .setRequestMarshaller(RawBytes.INSTANCE)
            .setResponseMarshaller(RawBytes.INSTANCE)
            .build();
    GrpcCallContext call =
        new GrpcCallContext(
            named, headers, connection.context().channel(), connection.host().ticker(), -1);
    connection.hosted().callStarted(call).ended(status, null);
  }
}
