package dev.tether.grpc.client;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.EmptyHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a gRPC call crosses Tether's runtime, which carries one request body and one answer body per
 * call: the request body holds the call's metadata (in its HTTP/2 header form) and its message; the
 * answer body holds the response headers, the messages and the trailers as they arrived. Only the
 * channel writes them and only the link reads them (and the other way round), so the layout is this
 * module's own: counts and lengths as four-byte big-endian integers, names and values one byte per
 * character, as HPACK puts them on the wire. Read back, names and values are views of the body (no
 * copies): every call takes this path twice, so it is kept lean.
 */
final class Envelopes {
  private Envelopes() {}

  /**
   * A request as the link takes it apart; {@code streamToken} names the sink of a stream ({@link
   * StreamTokens}), 0 for a unary call; {@code openEnded} when the caller sends its messages later
   * (client and bidirectional streams: the stream opens with its headers alone).
   */
  record Request(Http2Headers metadata, byte[] message, long streamToken, boolean openEnded) {}

  /** An answer as the channel takes it apart. */
  record Answer(Http2Headers headers, List<byte[]> messages, Http2Headers trailers) {}

  static byte[] request(
      Http2Headers metadata, byte[] message, long streamToken, boolean openEnded) {
    int size = sizeOf(metadata) + 9 + 4 + message.length;
    ByteBuffer out = ByteBuffer.allocate(size);
    putHeaders(out, metadata);
    out.putLong(streamToken).put((byte) (openEnded ? 1 : 0));
    out.putInt(message.length).put(message);
    return out.array();
  }

  static Request readRequest(byte[] body) {
    ByteBuffer in = ByteBuffer.wrap(body);
    Http2Headers md = readHeaders(body, in);
    long token = in.getLong();
    boolean openEnded = in.get() != 0;
    return new Request(md, readBytes(in), token, openEnded);
  }

  static byte[] answer(Http2Headers headers, List<byte[]> messages, Http2Headers trailers) {
    int size = sizeOf(headers) + sizeOf(trailers) + 4;
    for (byte[] m : messages) {
      size += 4 + m.length;
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    putHeaders(out, headers);
    putHeaders(out, trailers);
    out.putInt(messages.size());
    for (byte[] m : messages) {
      out.putInt(m.length).put(m);
    }
    return out.array();
  }

  static Answer readAnswer(byte[] body) {
    ByteBuffer in = ByteBuffer.wrap(body);
    Http2Headers headers = readHeaders(body, in);
    Http2Headers trailers = readHeaders(body, in);
    int n = in.getInt();
    List<byte[]> messages = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      messages.add(readBytes(in));
    }
    return new Answer(headers, messages, trailers);
  }

  /** The bytes {@code headers} (null: none) take with their lengths and count. */
  private static int sizeOf(Http2Headers headers) {
    int size = 4;
    if (headers != null) {
      for (Map.Entry<CharSequence, CharSequence> h : headers) {
        size += 8 + h.getKey().length() + h.getValue().length();
      }
    }
    return size;
  }

  private static void putHeaders(ByteBuffer out, Http2Headers headers) {
    out.putInt(headers == null ? 0 : headers.size());
    if (headers != null) {
      for (Map.Entry<CharSequence, CharSequence> h : headers) {
        putText(out, h.getKey());
        putText(out, h.getValue());
      }
    }
  }

  private static void putText(ByteBuffer out, CharSequence text) {
    out.putInt(text.length());
    if (text instanceof AsciiString ascii) {
      out.put(ascii.array(), ascii.arrayOffset(), ascii.length());
      return;
    }
    for (int i = 0; i < text.length(); i++) {
      out.put(AsciiString.c2b(text.charAt(i)));
    }
  }

  /** Headers read from {@code body} at {@code in}'s position; names and values are its views. */
  private static Http2Headers readHeaders(byte[] body, ByteBuffer in) {
    int n = in.getInt();
    if (n == 0) {
      return EmptyHttp2Headers.INSTANCE;
    }
    Http2Headers headers = new DefaultHttp2Headers(false, n);
    for (int i = 0; i < n; i++) {
      AsciiString name = view(body, in);
      headers.add(name, view(body, in));
    }
    return headers;
  }

  private static AsciiString view(byte[] body, ByteBuffer in) {
    int length = in.getInt();
    int at = in.position();
    in.position(at + length);
    return new AsciiString(body, at, length, false);
  }

  private static byte[] readBytes(ByteBuffer in) {
    byte[] b = new byte[in.getInt()];
    in.get(b);
    return b;
  }
}
