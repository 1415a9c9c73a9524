package dev.tether.grpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersEncoder;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain socket that writes HTTP/2 frames byte by byte as a hostile client would (no codec checks
 * what it sends) and reads the server's frames back as lines of text: "type 3 stream 1 error 1" for
 * a RST_STREAM, "type 7 stream 0 error 11" for a GOAWAY, "type 1 stream 1 :status 200".
 */
final class RawHttp2Socket implements AutoCloseable {
  static final int DATA = 0x0;
  static final int HEADERS = 0x1;
  static final int RST_STREAM = 0x3;
  static final int SETTINGS = 0x4;
  static final int PING = 0x6;
  static final int GOAWAY = 0x7;
  static final int WINDOW_UPDATE = 0x8;
  static final int CONTINUATION = 0x9;
  static final int END_STREAM = 0x1;
  static final int END_HEADERS = 0x4;

  /** HTTP/2's client preface. */
  static final byte[] PREFACE = ByteBufUtil.getBytes(Http2CodecUtil.connectionPrefaceBuf());

  private final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;

  RawHttp2Socket(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(10_000);
    out = socket.getOutputStream();
    in = new DataInputStream(socket.getInputStream());
  }

  /** The client preface and an empty SETTINGS, as every HTTP/2 client opens. */
  RawHttp2Socket handshake() throws IOException {
    return handshake(new byte[0]);
  }

  /** The client preface and a SETTINGS frame carrying {@code settings} (6 bytes per setting). */
  RawHttp2Socket handshake(byte[] settings) throws IOException {
    out.write(PREFACE);
    write(SETTINGS, 0, 0, settings);
    return this;
  }

  void write(int type, int flags, int stream, byte[] payload) throws IOException {
    out.write(frame(type, flags, stream, payload));
  }

  void writeRaw(byte[] bytes) throws IOException {
    out.write(bytes);
  }

  /** One HEADERS frame holding all of {@code headers}. */
  void headers(int stream, Http2Headers headers, boolean endStream) throws IOException {
    write(HEADERS, END_HEADERS | (endStream ? END_STREAM : 0), stream, encode(stream, headers));
  }

  /** A gRPC request's headers for {@code method} of the interop service. */
  static Http2Headers request(String method) {
    // Unvalidated, so a test may add what no well-behaved client would.
    return new DefaultHttp2Headers(false)
        .method("POST")
        .scheme("http")
        .authority("127.0.0.1")
        .path("/" + InteropService.SERVICE + "/" + method)
        .set("content-type", "application/grpc")
        .set("te", "trailers");
  }

  /** One gRPC message: the uncompressed flag, its length, its bytes. */
  static byte[] message(byte[] bytes) {
    byte[] m = new byte[5 + bytes.length];
    m[1] = (byte) (bytes.length >>> 24);
    m[2] = (byte) (bytes.length >>> 16);
    m[3] = (byte) (bytes.length >>> 8);
    m[4] = (byte) bytes.length;
    System.arraycopy(bytes, 0, m, 5, bytes.length);
    return m;
  }

  /** {@code headers} as an HPACK block; a lone encoder knows no peer limit and checks nothing. */
  static byte[] encode(int stream, Http2Headers headers) {
    ByteBuf block = Unpooled.buffer();
    try {
      new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE, false)
          .encodeHeaders(stream, headers, block);
      return ByteBufUtil.getBytes(block);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      block.release();
    }
  }

  static byte[] frame(int type, int flags, int stream, byte[] payload) {
    ByteArrayOutputStream f = new ByteArrayOutputStream(9 + payload.length);
    f.write(payload.length >>> 16);
    f.write(payload.length >>> 8);
    f.write(payload.length);
    f.write(type);
    f.write(flags);
    f.write(stream >>> 24);
    f.write(stream >>> 16);
    f.write(stream >>> 8);
    f.write(stream);
    f.writeBytes(payload);
    return f.toByteArray();
  }

  /** One frame the server sent, as it came. */
  record Frame(int type, int flags, int stream, byte[] payload) {}

  /** The server's next frame, waiting at most the socket's timeout. */
  Frame readFrame() throws IOException {
    int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
    int type = in.readUnsignedByte();
    int flags = in.readUnsignedByte();
    int stream = in.readInt() & Integer.MAX_VALUE;
    return new Frame(type, flags, stream, in.readNBytes(length));
  }

  /**
   * The server's frames until one starts with {@code last} (null: until it closes), at most 1000; a
   * reset socket ends the list like a close.
   */
  List<String> framesUntil(String last) throws IOException {
    List<String> frames = new ArrayList<>();
    try {
      for (int i = 0; i < 1000; i++) {
        int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
        int type = in.readUnsignedByte();
        in.readUnsignedByte();
        int stream = in.readInt() & Integer.MAX_VALUE;
        byte[] payload = in.readNBytes(length);
        String frame = "type " + type + " stream " + stream;
        if (type == GOAWAY && payload.length >= 8) {
          frame += " error " + Integer.toUnsignedLong(Unpooled.wrappedBuffer(payload).getInt(4));
        } else if (type == RST_STREAM && payload.length == 4) {
          frame += " error " + Integer.toUnsignedLong(Unpooled.wrappedBuffer(payload).getInt(0));
        }
        if (type == HEADERS) {
          frame += describe(stream, payload);
        }
        frames.add(frame);
        if (last != null && frame.startsWith(last)) {
          return frames;
        }
      }
    } catch (EOFException | SocketException closed) {
      return frames;
    }
    return frames;
  }

  /** Decodes every HEADERS block the server sends, in order, as HPACK requires. */
  private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);

  /** " :status 200 grpc-status 0", with what the block holds of the two. */
  private String describe(int stream, byte[] block) throws IOException {
    try {
      Http2Headers h = decoder.decodeHeaders(stream, Unpooled.wrappedBuffer(block));
      return (h.status() == null ? "" : " :status " + h.status())
          + (h.get("grpc-status") == null ? "" : " grpc-status " + h.get("grpc-status"));
    } catch (Http2Exception e) {
      throw new IOException(e);
    }
  }

  /** Closes with a TCP reset instead of a FIN, as a client that crashed. */
  void reset() throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
