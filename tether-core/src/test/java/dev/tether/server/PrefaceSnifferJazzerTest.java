package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tether.ExecutionMode;
import dev.tether.FuzzRun;
import dev.tether.spi.WireProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Coverage-guided fuzzing of the first bytes of a connection on a server that speaks more than
 * Tether's protocol, cut into reads of any size: Tether ("TETH"), HTTP/2's client preface, and a
 * third preface that shares Tether's first two bytes, so that the sniffer must wait across reads
 * (the real pair decides on the first byte). Whatever arrives, no exception escapes; the connection
 * goes to exactly one protocol, the one whose preface alone fits the bytes seen at the first read
 * after which at most one fits (Tether when none does); that protocol receives every byte in order,
 * none twice; the sniffer leaves the pipeline; nothing buffered leaks. The normal build replays the
 * corpus under {@code src/test/resources/dev/tether/server/PrefaceSnifferJazzerTestInputs/}.
 */
class PrefaceSnifferJazzerTest {
  private static final byte[] TETHER = "TETH".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HTTP2 =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] LOOKALIKE = "TEA\r\n".getBytes(StandardCharsets.US_ASCII);

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void everyConnectionGoesWholeToTheOneProtocolItsFirstBytesFit(FuzzedDataProvider data) {
    List<byte[]> reads = new ArrayList<>();
    while (data.remainingBytes() > 0 && reads.size() < 16) {
      reads.add(data.consumeBytes(data.consumeInt(1, 48)));
    }
    Recorder tether = new Recorder("tether");
    Recorder http2 = new Recorder("http2");
    Recorder lookalike = new Recorder("lookalike");
    ServedProtocols settings =
        new ServedProtocols(
            List.of(new Recording(HTTP2, http2), new Recording(LOOKALIKE, lookalike)),
            ExecutionMode.DIRECT,
            null,
            100,
            null,
            null);
    // The sniffer reads only each host's protocol: no dispatcher or admission is needed.
    List<ProtocolHost> served =
        settings.protocols().stream().map(p -> new ProtocolHost(p, settings, null, null)).toList();
    EmbeddedChannel channel = new EmbeddedChannel();
    List<ByteBuf> sent = new ArrayList<>();
    PrefaceSniffer.install(channel, served, c -> tether.attach(c), new ServerClock(null, null), 0);
    for (byte[] read : reads) {
      ByteBuf buf = bufferOf(read);
      sent.add(buf);
      channel.writeInbound(buf);
    }
    channel.checkException();

    String expected = expectedProtocol(reads);
    List<Recorder> chosen =
        List.of(tether, http2, lookalike).stream().filter(r -> r.attached > 0).toList();
    if (expected == null) {
      assertThat(chosen).as("chose before the bytes fitted one protocol").isEmpty();
      assertThat(channel.pipeline().get(PrefaceSniffer.class)).isNotNull();
    } else {
      assertThat(chosen).extracting(r -> r.name).containsExactly(expected);
      assertThat(chosen.get(0).attached).isEqualTo(1);
      assertThat(chosen.get(0).received.toByteArray()).isEqualTo(concat(reads));
      assertThat(channel.pipeline().get(PrefaceSniffer.class)).isNull();
    }
    channel.finishAndReleaseAll();
    assertThat(sent).allMatch(b -> b.refCnt() == 0, "every read released");
  }

  /**
   * The protocol the sniffer must choose: at the end of the first read after which at most one
   * preface fits what came so far; null when every read left two fitting.
   */
  private static String expectedProtocol(List<byte[]> reads) {
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    for (byte[] read : reads) {
      if (read.length == 0) {
        continue;
      }
      seen.writeBytes(read);
      byte[] so = seen.toByteArray();
      boolean t = fits(so, TETHER);
      boolean h = fits(so, HTTP2);
      boolean l = fits(so, LOOKALIKE);
      int fitting = (t ? 1 : 0) + (h ? 1 : 0) + (l ? 1 : 0);
      if (fitting <= 1) {
        return h ? "http2" : l ? "lookalike" : "tether";
      }
    }
    return null;
  }

  private static boolean fits(byte[] seen, byte[] preface) {
    int n = Math.min(seen.length, preface.length);
    for (int i = 0; i < n; i++) {
      if (seen[i] != preface[i]) {
        return false;
      }
    }
    return true;
  }

  private static byte[] concat(List<byte[]> reads) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    reads.forEach(all::writeBytes);
    return all.toByteArray();
  }

  /** Stands for a protocol's pipeline: counts how often it was installed and keeps what it read. */
  private static final class Recorder extends ChannelInboundHandlerAdapter {
    final String name;
    final ByteArrayOutputStream received = new ByteArrayOutputStream();
    int attached;

    Recorder(String name) {
      this.name = name;
    }

    void attach(Channel channel) {
      attached++;
      channel.pipeline().addLast(name, this);
    }

    @Override
    public boolean isSharable() {
      return true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf bytes = (ByteBuf) msg;
      try {
        received.writeBytes(ByteBufUtil.getBytes(bytes));
      } finally {
        bytes.release();
      }
    }
  }

  private record Recording(byte[] preface, Recorder recorder) implements WireProtocol {
    @Override
    public void serve(Channel channel, Host server) {
      recorder.attach(channel);
    }
  }

  /**
   * A buffer of its own even when empty: Netty hands out one shared empty buffer, which no release
   * frees, for an empty array or a zero capacity.
   */
  private static ByteBuf bufferOf(byte[] bytes) {
    return Unpooled.buffer(bytes.length, bytes.length + 1).writeBytes(bytes);
  }
}
