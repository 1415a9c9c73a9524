package dev.tether.grpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * How gRPC's values travel in HTTP/2 headers: metadata (binary keys, ending in {@code -bin}, in
 * base64), the status and its percent-encoded message, and the {@code grpc-timeout} deadline.
 * Public for the client side ({@code dev.tether.grpc.client}), which follows the same rules.
 */
public final class GrpcHeaders {
  public static final String CONTENT_TYPE = "application/grpc";
  public static final String STATUS = "grpc-status";
  public static final String MESSAGE = "grpc-message";
  public static final String TIMEOUT = "grpc-timeout";
  public static final String ENCODING = "grpc-encoding";
  public static final String ACCEPT_ENCODING = "grpc-accept-encoding";

  /** The message encodings both sides read, as {@code grpc-accept-encoding} names them. */
  public static final String ACCEPTED_ENCODINGS = "gzip,identity";

  /** Headers the transport writes itself; metadata under these names is not sent. */
  private static final Set<String> RESERVED =
      Set.of("content-type", "te", STATUS, MESSAGE, TIMEOUT, ENCODING, ACCEPT_ENCODING);

  // What every response carries, as Netty's own strings: HPACK hashes and compares them without
  // converting a String each time.
  private static final AsciiString OK_STATUS = AsciiString.cached("200");
  private static final AsciiString CONTENT_TYPE_NAME = AsciiString.cached("content-type");
  private static final AsciiString GRPC = AsciiString.cached(CONTENT_TYPE);
  private static final AsciiString ACCEPT_ENCODING_NAME = AsciiString.cached(ACCEPT_ENCODING);
  private static final AsciiString ACCEPTED = AsciiString.cached(ACCEPTED_ENCODINGS);
  private static final AsciiString STATUS_NAME = AsciiString.cached(STATUS);

  /** {@code grpc-status} values by code, so a status costs no string of its own. */
  private static final AsciiString[] STATUS_VALUES = statusValues();

  private static AsciiString[] statusValues() {
    Status.Code[] codes = Status.Code.values();
    AsciiString[] values = new AsciiString[codes.length];
    for (Status.Code code : codes) {
      values[code.ordinal()] = AsciiString.cached(Integer.toString(code.value()));
    }
    return values;
  }

  private static final Base64.Encoder BASE64 = Base64.getEncoder().withoutPadding();
  private static final Base64.Decoder UNBASE64 = Base64.getDecoder();
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private GrpcHeaders() {}

  /** Whether {@code contentType} is gRPC's: {@code application/grpc}, alone or with a suffix. */
  public static boolean isGrpc(CharSequence contentType) {
    if (contentType == null) {
      return false;
    }
    String ct = contentType.toString().toLowerCase(java.util.Locale.ROOT);
    if (!ct.startsWith(CONTENT_TYPE)) {
      return false;
    }
    return ct.length() == CONTENT_TYPE.length()
        || ct.charAt(CONTENT_TYPE.length()) == '+'
        || ct.charAt(CONTENT_TYPE.length()) == ';';
  }

  /** The headers that open a response: HTTP 200, gRPC's content type. */
  static Http2Headers responseHeaders() {
    return new DefaultHttp2Headers()
        .status(OK_STATUS)
        .set(CONTENT_TYPE_NAME, GRPC)
        .set(ACCEPT_ENCODING_NAME, ACCEPTED);
  }

  /**
   * The client's metadata: every header but the pseudo-headers; binary values decoded (padded or
   * not). A header whose name or value gRPC cannot hold is left out.
   */
  public static Metadata toMetadata(Http2Headers headers) {
    Metadata md = new Metadata();
    for (Map.Entry<CharSequence, CharSequence> h : headers) {
      String name = h.getKey().toString();
      if (name.startsWith(":")) {
        continue;
      }
      try {
        if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
          for (String part : h.getValue().toString().split(",")) {
            md.put(
                Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER),
                UNBASE64.decode(part.trim()));
          }
        } else {
          md.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), h.getValue().toString());
        }
      } catch (IllegalArgumentException notGrpc) {
        // A name gRPC's keys do not allow, or bad base64: not metadata a service could read.
      }
    }
    return md;
  }

  /** Adds {@code md} to {@code headers}, binary values in unpadded base64. */
  public static Http2Headers addMetadata(Http2Headers headers, Metadata md) {
    for (String name : md.keys()) {
      if (RESERVED.contains(name) || name.startsWith(":")) {
        continue;
      }
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        for (byte[] v : md.getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER))) {
          headers.add(name, BASE64.encodeToString(v));
        }
      } else {
        for (String v : md.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER))) {
          headers.add(name, v);
        }
      }
    }
    return headers;
  }

  /** Adds {@code status}: its code, and its description percent-encoded as UTF-8. */
  static Http2Headers addStatus(Http2Headers headers, Status status) {
    headers.set(STATUS_NAME, STATUS_VALUES[status.getCode().ordinal()]);
    if (status.getDescription() != null) {
      headers.set(MESSAGE, percentEncode(status.getDescription()));
    }
    return headers;
  }

  /** Printable ASCII but '%' stays; every other byte of the UTF-8 form becomes %XX. */
  public static String percentEncode(String message) {
    byte[] utf8 = message.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(utf8.length);
    for (byte b : utf8) {
      if (b >= ' ' && b < 0x7f && b != '%') {
        out.append((char) b);
      } else {
        out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
      }
    }
    return out.toString();
  }

  /**
   * The deadline {@code grpc-timeout} gives, in nanoseconds (at most eight digits and a unit: H, M,
   * S, m, u, n); -1 when absent.
   *
   * @throws IllegalArgumentException when it is malformed
   */
  static long timeoutNanos(CharSequence value) {
    if (value == null) {
      return -1;
    }
    int n = value.length();
    if (n < 2 || n > 9) {
      throw new IllegalArgumentException("malformed grpc-timeout: " + value);
    }
    long amount = 0;
    for (int i = 0; i < n - 1; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        throw new IllegalArgumentException("malformed grpc-timeout: " + value);
      }
      amount = amount * 10 + (c - '0');
    }
    TimeUnit unit =
        switch (value.charAt(n - 1)) {
          case 'H' -> TimeUnit.HOURS;
          case 'M' -> TimeUnit.MINUTES;
          case 'S' -> TimeUnit.SECONDS;
          case 'm' -> TimeUnit.MILLISECONDS;
          case 'u' -> TimeUnit.MICROSECONDS;
          case 'n' -> TimeUnit.NANOSECONDS;
          default -> throw new IllegalArgumentException("malformed grpc-timeout: " + value);
        };
    return unit.toNanos(amount);
  }
}
