package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.spi.WireProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One port, two protocols: the first bytes a client sends choose who serves the connection. */
class PrefaceSnifferTest {
  /** A protocol whose clients open with "ECHO\r\n" and get every byte back, preface included. */
  private static final class EchoProtocol implements WireProtocol {
    final AtomicInteger served = new AtomicInteger();
    volatile Host host;

    @Override
    public byte[] preface() {
      return "ECHO\r\n".getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void serve(Channel channel, Host server) {
      served.incrementAndGet();
      host = server;
      channel
          .pipeline()
          .addLast(
              new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                  ctx.writeAndFlush((ByteBuf) msg);
                }
              });
    }
  }

  private final EchoProtocol echo = new EchoProtocol();
  private TetherServer server;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .property("tether.server.handshakeTimeout", "300ms")
            .service("echo", (operation, payload, ctx) -> payload)
            .wireProtocol(echo)
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private Socket connect() throws Exception {
    Socket s = new Socket("127.0.0.1", server.endpoints().get(0).port());
    s.setSoTimeout(10_000);
    return s;
  }

  @Test
  void handsAConnectionThatOpensWithAnotherProtocolsPrefaceToThatProtocol() throws Exception {
    byte[] sent = "ECHO\r\nhello".getBytes(StandardCharsets.US_ASCII);
    try (Socket s = connect()) {
      // Byte by byte: the server must wait until the bytes fit one protocol only.
      for (byte b : sent) {
        s.getOutputStream().write(b);
        s.getOutputStream().flush();
      }
      byte[] back = s.getInputStream().readNBytes(sent.length);

      assertThat(back).isEqualTo(sent);
    }
    assertThat(echo.served).hasValue(1);
    assertThat(echo.host.maxConcurrentRequests()).isEqualTo(10_000);
    assertThat(echo.host.executor()).isNotNull();
  }

  @Test
  void servesTetherClientsOnTheSamePort() {
    try (Tether tether = Tether.create()) {
      byte[] answer = tether.proxy(server.proxyString("echo")).invoke("echo", new byte[] {1, 2, 3});

      assertThat(answer).containsExactly(1, 2, 3);
    }
    assertThat(echo.served).hasValue(0);
  }

  @Test
  void givesBytesThatFitNoPrefaceToTetherWhichClosesTheConnection() throws Exception {
    try (Socket s = connect()) {
      s.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));

      awaitClosedByServer(s.getInputStream());
    }
    assertThat(echo.served).hasValue(0);
  }

  @Test
  void closesAConnectionThatSendsTooLittleToDecideWithinTheHandshakeTimeout() throws Exception {
    try (Socket s = connect()) {
      // Silent: without the deadline it would hold its socket for ever.
      awaitClosedByServer(s.getInputStream());
    }
    assertThat(echo.served).hasValue(0);
  }

  /**
   * Returns once the server closed the connection, whatever it sent before; a server that keeps it
   * open fails the read after the socket's ten-second timeout.
   */
  private static void awaitClosedByServer(InputStream in) throws Exception {
    while (in.read() >= 0) {
      // Tether's GOAWAY, if any, is not the point here.
    }
  }
}
