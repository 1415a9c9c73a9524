package dev.tether.admin;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A plain socket to the admin port on 127.0.0.1, for what an HTTP client library hides: pipelined
 * requests, raw Host headers, requests sent a piece at a time, connections left idle.
 */
final class RawHttp implements AutoCloseable {
  /** One response as it came: its status line, and its body (as long as Content-Length said). */
  record Response(String statusLine, String body) {}

  private final Socket socket = new Socket();
  private final InputStream in;

  RawHttp(TetherAdmin admin) throws IOException {
    socket.connect(new InetSocketAddress("127.0.0.1", admin.address().getPort()), 5000);
    socket.setSoTimeout(10_000);
    in = socket.getInputStream();
  }

  /** Sends {@code text} as it is (CRLFs and all). */
  RawHttp send(String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
    return this;
  }

  /** A GET of {@code path} naming {@code host}, kept alive. */
  static String get(String path, String host) {
    return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
  }

  /** Reads the next response whole. */
  Response read() throws IOException {
    String statusLine = line();
    int length = 0;
    for (String header = line(); !header.isEmpty(); header = line()) {
      String lower = header.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Integer.parseInt(header.substring("content-length:".length()).trim());
      }
    }
    byte[] body = in.readNBytes(length);
    return new Response(statusLine, new String(body, StandardCharsets.UTF_8));
  }

  /** True when the server has closed the connection: a read finds the end of the stream. */
  boolean closedByServer() throws IOException {
    try {
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (java.net.SocketException reset) {
      return true;
    }
  }

  /** The next line the server sent, without its line end (for a stream of events). */
  String nextLine() throws IOException {
    return line();
  }

  private String line() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("connection closed mid-response: " + out);
      }
      if (b != '\r') {
        out.write(b);
      }
    }
    return out.toString(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
