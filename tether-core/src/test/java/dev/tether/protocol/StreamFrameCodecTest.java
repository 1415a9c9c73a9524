package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stream frames of protocol 1.3 byte by byte, as docs/protocol.md 3.9 shows them. */
class StreamFrameCodecTest {
  private static String hex(Frame f) {
    ByteBuf out = Unpooled.buffer();
    FrameWriter.encode(f, out);
    return ByteBufUtil.hexDump(out);
  }

  private static Frame roundTrip(Frame f) {
    ByteBuf out = Unpooled.buffer();
    FrameWriter.encode(f, out);
    out.skipBytes(4);
    return FrameReader.decode(out);
  }

  @Test
  void streamItemMatchesTheDocumentedExample() {
    StreamItem item = new StreamItem(1, 1, "hi".getBytes(StandardCharsets.US_ASCII));

    assertThat(hex(item)).isEqualTo("00000009" + "0b" + "00" + "00000001" + "01" + "6869");
    StreamItem back = (StreamItem) roundTrip(item);
    assertThat(back.position()).isEqualTo(1);
    assertThat(back.body()).isEqualTo(item.body());
  }

  @Test
  void streamCreditMatchesTheDocumentedExample() {
    StreamCredit credit = new StreamCredit(1, 0, 64);

    assertThat(hex(credit)).isEqualTo("00000008" + "0c" + "00" + "00000001" + "00" + "40");
    assertThat(roundTrip(credit)).isEqualTo(credit);
  }

  @Test
  void streamEndCarriesStatusFinalPositionAndMetadata() {
    StreamEnd end =
        new StreamEnd(7, Status.REMOTE_ERROR, 300, Map.of(Response.ERROR_MESSAGE, "broke"));

    assertThat(roundTrip(end)).isEqualTo(end);
  }

  @Test
  void streamItemAtPositionZeroIsAProtocolError() {
    ByteBuf frame =
        Unpooled.buffer()
            .writeByte(FrameType.STREAM_ITEM.code())
            .writeByte(0)
            .writeInt(1)
            .writeByte(0);

    assertThatThrownBy(() -> FrameReader.decode(frame))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("STREAM_ITEM.position");
  }

  @Test
  void resumeBodyNamesItsTokenAndPositions() {
    byte[] token = new byte[StreamResume.TOKEN_BYTES];
    token[0] = 9;
    StreamResume asked =
        StreamResume.decodeRequest(new StreamResume(token, 1000, 1064).encodeRequest());

    assertThat(asked.token()).isEqualTo(token);
    assertThat(asked.received()).isEqualTo(1000);
    assertThat(asked.limit()).isEqualTo(1064);
    assertThatThrownBy(() -> StreamResume.decodeRequest(new byte[3]))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("RESUME.token");
  }
}
