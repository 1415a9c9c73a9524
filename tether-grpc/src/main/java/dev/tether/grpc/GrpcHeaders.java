package dev.tether.grpc;

import io.grpc.InternalMetadata;
import io.grpc.Metadata;
import io.grpc.Status;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

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
  private static final Set<AsciiString> RESERVED =
      Set.of("content-type", "te", STATUS, MESSAGE, TIMEOUT, ENCODING, ACCEPT_ENCODING).stream()
          .map(AsciiString::of)
          .collect(Collectors.toUnmodifiableSet());

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

  /**
   * Whether {@code contentType} is gRPC's: {@code application/grpc} in any case, alone or with a
   * suffix. Every answer and request asks, so it compares in place rather than lower-casing a copy.
   */
  public static boolean isGrpc(CharSequence contentType) {
    if (contentType == null) {
      return false;
    }
    int n = CONTENT_TYPE.length();
    if (contentType.length() < n
        || !AsciiString.regionMatches(contentType, true, 0, CONTENT_TYPE, 0, n)) {
      return false;
    }
    return contentType.length() == n
        || contentType.charAt(n) == '+'
        || contentType.charAt(n) == ';';
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
   * not). A header whose name or value gRPC cannot hold is left out. Built from the headers' bytes
   * as grpc-java's transport builds it (values parsed only when read), without a {@code
   * Metadata.Key} per header: every call's headers and trailers come this way.
   */
  public static Metadata toMetadata(Http2Headers headers) {
    byte[][] pairs = new byte[headers.size() * 2][];
    int n = 0;
    for (Map.Entry<CharSequence, CharSequence> h : headers) {
      CharSequence name = h.getKey();
      if (!isMetadataName(name)) {
        continue; // a pseudo-header, or a name gRPC's keys do not allow
      }
      byte[] nameBytes = bytesOf(name);
      if (!endsWithBinarySuffix(name)) {
        pairs = room(pairs, n);
        pairs[n++] = nameBytes;
        pairs[n++] = bytesOf(h.getValue());
        continue;
      }
      try {
        for (String part : h.getValue().toString().split(",")) {
          pairs = room(pairs, n);
          pairs[n++] = nameBytes;
          pairs[n++] = UNBASE64.decode(part.trim());
        }
      } catch (IllegalArgumentException badBase64) {
        // not metadata a service could read; the parts before it stay
      }
    }
    return InternalMetadata.newMetadata(n / 2, pairs);
  }

  /** {@code pairs}, grown when a header's comma-separated values outnumber the headers. */
  private static byte[][] room(byte[][] pairs, int n) {
    return n + 2 <= pairs.length ? pairs : Arrays.copyOf(pairs, Math.max(4, pairs.length * 2));
  }

  /** What {@code Metadata.Key} allows: lower-case letters, digits, '-', '_' and '.'. */
  public static boolean isMetadataName(CharSequence name) {
    if (name.length() == 0) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
        return false;
      }
    }
    return true;
  }

  private static boolean endsWithBinarySuffix(CharSequence name) {
    String suffix = Metadata.BINARY_HEADER_SUFFIX;
    int from = name.length() - suffix.length();
    return from >= 0 && AsciiString.regionMatches(name, false, from, suffix, 0, suffix.length());
  }

  /** One byte per character, as HPACK read them. */
  private static byte[] bytesOf(CharSequence text) {
    return text instanceof AsciiString ascii
        ? ascii.toByteArray()
        : text.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * Adds {@code md} to {@code headers}, binary values in unpadded base64; names and values go as
   * the bytes {@code md} holds, without a {@code Metadata.Key} per name.
   */
  public static Http2Headers addMetadata(Http2Headers headers, Metadata md) {
    int count = InternalMetadata.headerCount(md);
    if (count == 0) {
      return headers;
    }
    byte[][] pairs = InternalMetadata.serialize(md);
    for (int i = 0; i < count * 2; i += 2) {
      AsciiString name = new AsciiString(pairs[i], false);
      if (RESERVED.contains(name) || name.byteAt(0) == ':') {
        continue;
      }
      headers.add(
          name,
          endsWithBinarySuffix(name)
              ? new AsciiString(BASE64.encode(pairs[i + 1]), false)
              : new AsciiString(pairs[i + 1], false));
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
