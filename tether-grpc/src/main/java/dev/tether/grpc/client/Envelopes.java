package dev.tether.grpc.client;

import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a gRPC call crosses Tether's runtime, which carries one request body and one answer body per
 * call: the request body holds the call's metadata (in its HTTP/2 header form) and its message; the
 * answer body holds the response headers, the messages and the trailers as they arrived. Only the
 * channel writes them and only the link reads them (and the other way round), so the layout is this
 * module's own: counts and lengths as four-byte big-endian integers, names and values in UTF-8.
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
    List<byte[]> parts = new ArrayList<>();
    int size = headerParts(metadata, parts) + 9 + 4 + message.length;
    ByteBuffer out = ByteBuffer.allocate(size);
    putParts(out, parts);
    out.putLong(streamToken).put((byte) (openEnded ? 1 : 0));
    out.putInt(message.length).put(message);
    return out.array();
  }

  static Request readRequest(byte[] body) {
    ByteBuffer in = ByteBuffer.wrap(body);
    Http2Headers md = readHeaders(in);
    long token = in.getLong();
    boolean openEnded = in.get() != 0;
    return new Request(md, readBytes(in), token, openEnded);
  }

  static byte[] answer(Http2Headers headers, List<byte[]> messages, Http2Headers trailers) {
    List<byte[]> headerParts = new ArrayList<>();
    List<byte[]> trailerParts = new ArrayList<>();
    int size = headerParts(headers, headerParts) + headerParts(trailers, trailerParts) + 4;
    for (byte[] m : messages) {
      size += 4 + m.length;
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    putParts(out, headerParts);
    putParts(out, trailerParts);
    out.putInt(messages.size());
    for (byte[] m : messages) {
      out.putInt(m.length).put(m);
    }
    return out.array();
  }

  static Answer readAnswer(byte[] body) {
    ByteBuffer in = ByteBuffer.wrap(body);
    Http2Headers headers = readHeaders(in);
    Http2Headers trailers = readHeaders(in);
    int n = in.getInt();
    List<byte[]> messages = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      messages.add(readBytes(in));
    }
    return new Answer(headers, messages, trailers);
  }

  /**
   * Adds each name and value of {@code headers} (null: none) to {@code parts} in UTF-8, and returns
   * the bytes they take with their lengths and the count.
   */
  private static int headerParts(Http2Headers headers, List<byte[]> parts) {
    int size = 4;
    if (headers != null) {
      for (Map.Entry<CharSequence, CharSequence> h : headers) {
        byte[] name = h.getKey().toString().getBytes(StandardCharsets.UTF_8);
        byte[] value = h.getValue().toString().getBytes(StandardCharsets.UTF_8);
        parts.add(name);
        parts.add(value);
        size += 8 + name.length + value.length;
      }
    }
    return size;
  }

  private static void putParts(ByteBuffer out, List<byte[]> parts) {
    out.putInt(parts.size() / 2);
    for (byte[] p : parts) {
      out.putInt(p.length).put(p);
    }
  }

  private static Http2Headers readHeaders(ByteBuffer in) {
    int n = in.getInt();
    Http2Headers headers = new DefaultHttp2Headers(false);
    for (int i = 0; i < n; i++) {
      String name = new String(readBytes(in), StandardCharsets.UTF_8);
      headers.add(name, new String(readBytes(in), StandardCharsets.UTF_8));
    }
    return headers;
  }

  private static byte[] readBytes(ByteBuffer in) {
    byte[] b = new byte[in.getInt()];
    in.get(b);
    return b;
  }
}
