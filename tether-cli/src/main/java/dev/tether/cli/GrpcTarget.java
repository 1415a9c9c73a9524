package dev.tether.cli;

import dev.tether.grpc.TetherGrpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.PrintWriter;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code --grpc} means to {@code tether call} and {@code tether bench}: the target ({@code
 * host:port} as grpcurl writes it, or a proxy string), the method by its full name ({@code
 * package.Service/Method}), whose messages are bytes sent and printed as they are, the {@code -H}
 * headers as gRPC metadata, and a status that is not OK as the command's failure.
 */
final class GrpcTarget {
  /** {@code host:port} or {@code [ipv6]:port}: never a proxy string, which starts with a name. */
  private static final Pattern HOST_PORT =
      Pattern.compile("(?:\\[([0-9A-Fa-f:.]+)]|([^\\s:\"\\[\\]]+)):(\\d{1,5})");

  /** {@code package.Service/Method}, with or without the leading '/' of its HTTP/2 path. */
  private static final Pattern FULL_METHOD = Pattern.compile("/?([^/\\s:\"]+)/([^/\\s]+)");

  private GrpcTarget() {}

  /**
   * The proxy string for {@code target}: {@code host:port} becomes a proxy to that one server named
   * by the method's service; anything else is taken as a proxy string (several endpoints, balancing
   * options) and read as such.
   */
  static String proxyString(String target, String fullMethod) {
    Matcher m = HOST_PORT.matcher(target);
    if (!m.matches()) {
      return target;
    }
    int port = Integer.parseInt(m.group(3));
    if (port < 1 || port > 65535) {
      throw CliException.badInput("no such port in '" + target + "': " + port, null);
    }
    String host = m.group(1) != null ? m.group(1) : m.group(2);
    return quoted(serviceOf(fullMethod)) + ":tcp -h " + quoted(host) + " -p " + port;
  }

  /**
   * The method named {@code fullMethod}, whose messages are bytes; {@code idempotent} lets the
   * runtime retry it after it was sent.
   */
  static MethodDescriptor<byte[], byte[]> method(
      String fullMethod, MethodDescriptor.MethodType type, boolean idempotent) {
    Matcher m = matchMethod(fullMethod);
    return MethodDescriptor.newBuilder(TetherGrpc.rawBytes(), TetherGrpc.rawBytes())
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(m.group(1), m.group(2)))
        .setIdempotent(idempotent)
        .build();
  }

  /** The {@code -H} headers as gRPC metadata; a {@code -bin} key's value is read as base64. */
  static Metadata metadata(List<Header> headers) {
    Metadata metadata = new Metadata();
    for (Header h : headers) {
      try {
        if (h.isBinary()) {
          metadata.put(
              Metadata.Key.of(h.key(), Metadata.BINARY_BYTE_MARSHALLER),
              Base64.getDecoder().decode(h.value()));
        } else {
          metadata.put(Metadata.Key.of(h.key(), Metadata.ASCII_STRING_MARSHALLER), h.value());
        }
      } catch (IllegalArgumentException e) {
        throw CliException.badInput(
            "-H " + PrintableText.of(h.key()) + ": " + PrintableText.of(e.getMessage()), e);
      }
    }
    return metadata;
  }

  /**
   * The command's failure for a call that ended with {@code status}: its code, the server's message
   * (made safe to print) and, when the runtime ended it, what the runtime saw.
   */
  static CliException failure(Status status) {
    return CliException.failed(describe(status), status.getCause());
  }

  /** {@code gRPC status NOT_FOUND: no such key}, with the runtime's reason when it has one. */
  static String describe(Status status) {
    StringBuilder text = new StringBuilder("gRPC status ").append(status.getCode());
    if (status.getDescription() != null) {
      text.append(": ").append(PrintableText.keepingLines(status.getDescription()));
    }
    Throwable cause = status.getCause();
    if (cause != null) {
      // The runtime's own failures become the status's description: their type is what is new.
      boolean saidAlready = Objects.equals(cause.getMessage(), status.getDescription());
      text.append(" (")
          .append(saidAlready ? FailureReporter.typeOf(cause) : FailureReporter.describe(cause))
          .append(')');
    }
    return text.toString();
  }

  /** The trailers a call ended with, one {@code key: value} a line, {@code -bin} values base64. */
  static void printTrailers(PrintWriter err, Metadata trailers) {
    err.println(trailers.keys().isEmpty() ? "trailers: (none)" : "trailers:");
    for (String key : trailers.keys()) {
      if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        for (byte[] v : trailers.getAll(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER))) {
          err.println("  " + PrintableText.of(key) + ": " + Base64.getEncoder().encodeToString(v));
        }
      } else {
        for (String v : trailers.getAll(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER))) {
          err.println("  " + PrintableText.of(key) + ": " + PrintableText.of(v));
        }
      }
    }
    err.flush();
  }

  private static String serviceOf(String fullMethod) {
    return matchMethod(fullMethod).group(1);
  }

  private static Matcher matchMethod(String fullMethod) {
    Matcher m = FULL_METHOD.matcher(fullMethod);
    if (!m.matches()) {
      throw CliException.badInput(
          "a gRPC method is named package.Service/Method (e.g. helloworld.Greeter/SayHello), not '"
              + PrintableText.of(fullMethod)
              + "'",
          null);
    }
    return m;
  }

  /** A host or name as one word of the proxy grammar, whatever characters it holds. */
  private static String quoted(String word) {
    return '"' + word.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}
