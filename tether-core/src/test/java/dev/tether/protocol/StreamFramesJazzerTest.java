package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tether.FuzzRun;
import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

/**
 * Coverage-guided fuzzing of what protocol 1.3 added: the payloads of STREAM_ITEM, STREAM_CREDIT
 * and STREAM_END behind a valid header, and the RESUME request and answer bodies. Each input is
 * refused with a {@link ProtocolException} or decodes to a value whose encoding is stable (it
 * decodes to the same bytes again); no other exception may escape. The normal build replays the
 * corpus under {@code src/test/resources/dev/tether/protocol/StreamFramesJazzerTestInputs/}; a run
 * with {@code JAZZER_FUZZ=1} explores further.
 */
class StreamFramesJazzerTest {
  private static final FrameType[] STREAM_TYPES = {
    FrameType.STREAM_ITEM, FrameType.STREAM_CREDIT, FrameType.STREAM_END
  };
  private static final int STREAM_ID = 7;

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void streamFrameDecodesToAStableEncodingOrIsRefused(byte[] input) {
    if (input.length == 0) {
      return;
    }
    FrameType type = STREAM_TYPES[Byte.toUnsignedInt(input[0]) % STREAM_TYPES.length];
    ByteBuf frame =
        Unpooled.buffer()
            .writeByte(type.code())
            .writeByte(0)
            .writeInt(STREAM_ID)
            .writeBytes(input, 1, input.length - 1);
    Frame decoded;
    try {
      decoded = FrameReader.decode(frame);
    } catch (ProtocolException refused) {
      return;
    }
    assertThat(decoded.type()).isEqualTo(type);
    assertThat(decoded.requestId()).isEqualTo(STREAM_ID);
    byte[] once = encoded(decoded);
    byte[] twice = encoded(FrameReader.decode(Unpooled.wrappedBuffer(once)));
    assertThat(twice).isEqualTo(once);
  }

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void resumeBodiesDecodeToAStableEncodingOrAreRefused(byte[] input) {
    try {
      StreamResume asked = StreamResume.decodeRequest(input);
      byte[] once = asked.encodeRequest();
      assertThat(StreamResume.decodeRequest(once).encodeRequest()).isEqualTo(once);
      assertThat(asked.token()).hasSize(StreamResume.TOKEN_BYTES);
    } catch (ProtocolException refused) {
      // what the server answers STREAM_LOST
    }
    try {
      byte[] once = StreamResume.decodeAnswer(input).encodeAnswer();
      assertThat(StreamResume.decodeAnswer(once).encodeAnswer()).isEqualTo(once);
    } catch (ProtocolException refused) {
      // what the client takes for a lost stream
    }
  }

  /** The frame's bytes after its length field: what {@link FrameReader#decode} reads. */
  private static byte[] encoded(Frame frame) {
    ByteBuf out = Unpooled.buffer();
    FrameWriter.encode(frame, out);
    out.skipBytes(4);
    return ByteBufUtil.getBytes(out);
  }
}
