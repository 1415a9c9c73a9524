package dev.tether.server;

import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameReader;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Hello;
import dev.tether.protocol.ProtocolVersion;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

/**
 * A client that speaks the wire protocol by hand over a plain loopback socket, so a test can send
 * what no Tether client would (garbage, silence, a HELLO and nothing else) and read every frame the
 * server answers. Reads block for at most ten seconds, so a server that never answers fails the
 * test instead of hanging it.
 */
final class RawPeer implements AutoCloseable {
  private final Socket socket;
  private final ByteArrayOutputStream received = new ByteArrayOutputStream();
  private boolean closedByServer;

  private RawPeer(Socket socket) {
    this.socket = socket;
  }

  static RawPeer connect(int port) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout(10_000);
    return new RawPeer(s);
  }

  /** A preface announcing protocol major version {@code major}. */
  static byte[] preface(int major) {
    return preface(major, ProtocolVersion.MINOR);
  }

  /** A preface announcing protocol version {@code major.minor}. */
  static byte[] preface(int major, int minor) {
    ByteBuf b = Unpooled.buffer();
    FrameWriter.writePreface(b);
    b.setByte(4, major);
    b.setByte(5, minor);
    return bytes(b);
  }

  static byte[] frame(Frame f) {
    ByteBuf b = Unpooled.buffer();
    FrameWriter.encode(f, b);
    return bytes(b);
  }

  /** The bytes of a well-behaved handshake: preface and HELLO. */
  static byte[][] handshake() {
    return handshake(ProtocolVersion.MINOR);
  }

  /** The same handshake from a client of protocol 1.{@code minor}. */
  static byte[][] handshake(int minor) {
    return new byte[][] {preface(ProtocolVersion.MAJOR, minor), frame(new Hello("raw", 1 << 20))};
  }

  private static byte[] bytes(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    return out;
  }

  RawPeer send(byte[]... parts) throws IOException {
    for (byte[] p : parts) {
      socket.getOutputStream().write(p);
    }
    socket.getOutputStream().flush();
    return this;
  }

  /**
   * Reads until {@code count} frames have arrived in all, or the server closed; returns them all.
   */
  List<Frame> readFrames(int count) throws IOException {
    InputStream in = socket.getInputStream();
    byte[] buf = new byte[4096];
    try {
      while (!closedByServer && decode(received.toByteArray()).size() < count) {
        int n = in.read(buf);
        if (n < 0) {
          closedByServer = true;
        } else {
          received.write(buf, 0, n);
        }
      }
    } catch (SocketException reset) {
      // A reset after the GOAWAY is fine: the server closed with our bytes unread.
      closedByServer = true;
    }
    return decode(received.toByteArray());
  }

  /** Reads until the server closes the connection; returns every frame it sent. */
  List<Frame> readUntilClosed() throws IOException {
    return readFrames(Integer.MAX_VALUE);
  }

  /** Bytes the server sent that wait unread in this socket's receive buffer. */
  int unread() throws IOException {
    return socket.getInputStream().available();
  }

  boolean closedByServer() {
    return closedByServer;
  }

  private static List<Frame> decode(byte[] raw) {
    List<Frame> frames = new ArrayList<>();
    ByteBuf in = Unpooled.wrappedBuffer(raw);
    if (in.readableBytes() >= ProtocolVersion.PREFACE_LENGTH
        && in.getInt(0) == ProtocolVersion.MAGIC) {
      in.skipBytes(ProtocolVersion.PREFACE_LENGTH);
    }
    while (in.readableBytes() >= 4 && in.readableBytes() >= 4 + in.getInt(in.readerIndex())) {
      int length = in.readInt();
      frames.add(FrameReader.decode(in.readSlice(length)));
    }
    return frames;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
