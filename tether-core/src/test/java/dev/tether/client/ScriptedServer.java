package dev.tether.client;

import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameReader;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Request;
import dev.tether.protocol.Welcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A fake server on loopback speaking just enough of the protocol to answer each request with the
 * frame a test scripts: the way to see how the client treats answers a real server rarely gives.
 */
final class ScriptedServer implements AutoCloseable {
  private final ServerSocket listener = new ServerSocket(0, 10, InetAddress.getByName("127.0.0.1"));
  private final AtomicInteger requests = new AtomicInteger();
  private final Function<Request, Frame> script;
  private final Welcome welcome;

  ScriptedServer(Function<Request, Frame> script) throws IOException {
    this(new Welcome("scripted", "1.0", 0, 1 << 20, 100, "", List.of()), script);
  }

  /** A server that opens with {@code welcome}, whatever it holds. */
  ScriptedServer(Welcome welcome, Function<Request, Frame> script) throws IOException {
    this.welcome = welcome;
    this.script = script;
    Thread acceptor = new Thread(this::serve, "scripted-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  int requestsSeen() {
    return requests.get();
  }

  private void serve() {
    while (!listener.isClosed()) {
      try (Socket s = listener.accept()) {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        in.readNBytes(ProtocolVersion.PREFACE_LENGTH);
        readFrame(in);
        out.write(bytes(welcome, true));
        while (true) {
          Request r = (Request) FrameReader.decode(Unpooled.wrappedBuffer(readFrame(in)));
          requests.incrementAndGet();
          out.write(bytes(script.apply(r), false));
          out.flush();
        }
      } catch (IOException | RuntimeException e) {
        // The client closed, the script ended the exchange, or the test closed the listener.
      }
    }
  }

  private static byte[] readFrame(InputStream in) throws IOException {
    byte[] header = in.readNBytes(4);
    if (header.length < 4) {
      throw new IOException("closed");
    }
    return in.readNBytes(ByteBuffer.wrap(header).getInt());
  }

  private static byte[] bytes(Frame f, boolean withPreface) {
    ByteBuf b = Unpooled.buffer();
    if (withPreface) {
      FrameWriter.writePreface(b);
    }
    FrameWriter.encode(f, b);
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    return out;
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
