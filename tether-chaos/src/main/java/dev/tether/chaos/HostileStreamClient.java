package dev.tether.chaos;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A client that breaks the stream rules on purpose, writing its frames by hand from
 * docs/protocol.md (preface, HELLO, REQUEST with STREAM, STREAM_ITEM, STREAM_CREDIT) over a plain
 * socket: it sends items past its credit, opens a stream on an id still in use, and grants a huge
 * credit it never reads. One connection per instance; not thread-safe.
 */
final class HostileStreamClient implements AutoCloseable {
  /** What the server did about an attack. */
  enum Verdict {
    /** GOAWAY(PROTOCOL_ERROR), then the connection closed: what the protocol asks. */
    CLOSED_AS_PROTOCOL_ERROR,
    /** The connection closed without GOAWAY(PROTOCOL_ERROR). */
    CLOSED_OTHERWISE,
    /** The connection stayed open: the server kept what it was sent. */
    STILL_OPEN
  }

  private static final byte[] PREFACE = {'T', 'E', 'T', 'H', 1, 4, 0, 0};
  private static final int HELLO = 1;
  private static final int REQUEST = 3;
  private static final int RESPONSE = 4;
  private static final int GOAWAY = 8;
  private static final int STREAM_ITEM = 11;
  private static final int STREAM_CREDIT = 12;
  private static final int STREAM = 0x08;
  private static final int BIDI = 0x10;
  private static final int PROTOCOL_ERROR = 1;
  private static final int MAX_FRAME = 16 << 20;

  private final Socket socket = new Socket();
  private final DataInputStream in;
  private final OutputStream out;

  /** Connects to {@code host:port} and finishes the handshake (its WELCOME read). */
  HostileStreamClient(String host, int port, Duration patience) throws IOException {
    socket.connect(new InetSocketAddress(host, port), (int) patience.toMillis());
    socket.setSoTimeout((int) patience.toMillis());
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
    ByteArrayOutputStream hello = new ByteArrayOutputStream();
    string(hello, "chaos-hostile");
    u32(hello, MAX_FRAME);
    out.write(PREFACE);
    frame(HELLO, 0, 0, hello.toByteArray());
    in.readFully(new byte[PREFACE.length]);
    readFrame();
  }

  /**
   * Opens stream {@code id} of {@link ChaosFlood} for {@code items} items (BIDI when {@code bidi}),
   * without waiting for its answer.
   */
  void open(int id, long items, boolean bidi) throws IOException {
    ByteArrayOutputStream p = new ByteArrayOutputStream();
    string(p, ChaosFlood.NAME);
    string(p, "hostile");
    varint(p, 0);
    varint(p, 0);
    p.write(Long.toString(items).getBytes(StandardCharsets.US_ASCII));
    frame(REQUEST, STREAM | (bidi ? BIDI : 0), id, p.toByteArray());
  }

  /** Reads until the answer to {@code id}'s opening; true when it is OK (status 0). */
  boolean awaitOpened(int id) throws IOException {
    while (true) {
      Frame f = readFrame();
      if (f.type() == RESPONSE && f.id() == id) {
        return f.payload().length > 0 && f.payload()[0] == 0;
      }
    }
  }

  /** Sends items 1 to {@code count} of 1 KiB on stream {@code id}, whatever its credit. */
  void sendItems(int id, int count) throws IOException {
    for (int position = 1; position <= count; position++) {
      ByteArrayOutputStream p = new ByteArrayOutputStream();
      varint(p, position);
      p.write(new byte[ChaosFlood.ITEM_BYTES]);
      frame(STREAM_ITEM, 0, id, p.toByteArray());
    }
  }

  /** Grants stream {@code id} a credit up to {@code limit}, having received nothing. */
  void credit(int id, long limit) throws IOException {
    ByteArrayOutputStream p = new ByteArrayOutputStream();
    varint(p, 0);
    varint(p, limit);
    frame(STREAM_CREDIT, 0, id, p.toByteArray());
  }

  /** Reads what the server sends until it closes the connection or the patience runs out. */
  Verdict verdict() {
    boolean protocolError = false;
    try {
      while (true) {
        Frame f = readFrame();
        if (f.type() == GOAWAY && f.payload().length > 0 && f.payload()[0] == PROTOCOL_ERROR) {
          protocolError = true;
        }
      }
    } catch (SocketTimeoutException e) {
      return Verdict.STILL_OPEN;
    } catch (IOException closed) {
      return protocolError ? Verdict.CLOSED_AS_PROTOCOL_ERROR : Verdict.CLOSED_OTHERWISE;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  private record Frame(int type, int id, byte[] payload) {}

  private Frame readFrame() throws IOException {
    int length = in.readInt();
    if (length < 6 || length > MAX_FRAME) {
      throw new EOFException("frame length " + length);
    }
    int type = in.readUnsignedByte();
    in.readUnsignedByte();
    int id = in.readInt();
    byte[] payload = new byte[length - 6];
    in.readFully(payload);
    return new Frame(type, id, payload);
  }

  private void frame(int type, int flags, int id, byte[] payload) throws IOException {
    ByteArrayOutputStream f = new ByteArrayOutputStream(10 + payload.length);
    u32(f, 6 + payload.length);
    f.write(type);
    f.write(flags);
    u32(f, id);
    f.write(payload);
    out.write(f.toByteArray());
    out.flush();
  }

  private static void u32(ByteArrayOutputStream b, int v) {
    b.write(v >>> 24);
    b.write(v >>> 16);
    b.write(v >>> 8);
    b.write(v);
  }

  private static void varint(ByteArrayOutputStream b, long v) {
    while ((v & ~0x7FL) != 0) {
      b.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    b.write((int) v);
  }

  private static void string(ByteArrayOutputStream b, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    varint(b, bytes.length);
    b.write(bytes, 0, bytes.length);
  }
}
