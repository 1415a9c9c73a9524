package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.protocol.FrameCodec;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Hello;
import dev.tether.protocol.ProtocolVersion;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The server side of keep-alive, in real time with short settings. */
class ServerReaderIdleTest {
  private TetherServer server;
  private Tether tether;

  @AfterEach
  void stop() {
    if (tether != null) {
      tether.close();
    }
    server.close();
  }

  private void startServer(String readerIdle) {
    server = TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p 0")
        .property("tether.server.readerIdle", readerIdle)
        .service("echo", (op, payload, ctx) -> payload)
        .build()
        .start();
  }

  @Test
  void silentClientIsSentGoAwayAndClosedAfterTheServersReaderIdle() throws IOException {
    startServer("200ms");
    ByteBuf hello = Unpooled.buffer();
    FrameCodec.writePreface(hello);
    FrameCodec.encode(new Hello("silent", 1 << 20), hello);
    long start = System.nanoTime();
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    try (Socket s = new Socket("127.0.0.1", server.endpoints().get(0).port())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(hello.array(), 0, hello.readableBytes());
      InputStream in = s.getInputStream();
      in.transferTo(received);
    }
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(elapsedMillis).isBetween(150L, 5_000L);
    ByteBuf answer = Unpooled.wrappedBuffer(received.toByteArray()).skipBytes(ProtocolVersion.PREFACE_LENGTH);
    GoAway last = null;
    while (answer.readableBytes() >= 4) {
      int length = answer.readInt();
      if (FrameCodec.decode(answer.readSlice(length)) instanceof GoAway g) {
        last = g;
      }
    }
    assertThat(last).isNotNull();
    assertThat(last.reason()).isEqualTo(GoAwayReason.IDLE_TIMEOUT);
  }
}
