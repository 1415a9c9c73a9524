package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.stream.Stream;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every malformation the codec must refuse, each with a message naming what is wrong. */
class FrameCodecMalformedInputTest {

  private static AbstractThrowableAssert<?, ? extends Throwable> decoding(ByteBuf frame) {
    return assertThatThrownBy(() -> FrameReader.decode(frame))
        .isInstanceOf(ProtocolException.class);
  }

  private static AbstractThrowableAssert<?, ? extends Throwable> decoding(RawFrame frame) {
    return decoding(frame.body());
  }

  @Test
  void frameShorterThanItsHeaderIsRejected() {
    decoding(Unpooled.wrappedBuffer(new byte[] {5, 0, 0, 0, 1}))
        .hasMessage("frame of 5 bytes is shorter than the 6-byte header");
  }

  @Test
  void unknownFrameTypeIsRejected() {
    decoding(RawFrame.of(14, 0, 0)).hasMessage("unknown frame type 14");
    decoding(RawFrame.of(0, 0, 0)).hasMessage("unknown frame type 0");
    decoding(RawFrame.of(255, 0, 0)).hasMessage("unknown frame type 255");
  }

  @Test
  void varintOfSixBytesIsRejected() {
    decoding(RawFrame.of(FrameType.HELLO).raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x01))
        .hasMessage("HELLO.clientId: varint is longer than 5 bytes");
  }

  @Test
  void varintAboveTheLargestIntIsRejected() {
    decoding(RawFrame.of(FrameType.HELLO).raw(0xFF, 0xFF, 0xFF, 0xFF, 0x0F))
        .hasMessage("HELLO.clientId: varint exceeds 2^31-1");
  }

  @Test
  void sixtyFourBitVarintOfElevenBytesIsRejected() {
    RawFrame frame =
        RawFrame.of(3, 0, 1)
            .string("s")
            .string("o")
            .raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);

    decoding(frame).hasMessage("REQUEST.deadlineMillis: varint is longer than 10 bytes");
  }

  @Test
  void sixtyFourBitVarintAboveTheLargestLongIsRejected() {
    RawFrame frame =
        RawFrame.of(3, 0, 1)
            .string("s")
            .string("o")
            .raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);

    decoding(frame).hasMessage("REQUEST.deadlineMillis: varint exceeds 2^63-1");
  }

  @Test
  void varintCutOffByTheEndOfTheFrameIsRejected() {
    decoding(RawFrame.of(FrameType.HELLO).raw(0x80, 0x80))
        .hasMessage("HELLO.clientId: varint is cut off by the end of the frame");
  }

  @Test
  void stringLongerThanTheRestOfTheFrameIsRejected() {
    decoding(RawFrame.of(FrameType.HELLO).varint(300).raw('a', 'b', 'c'))
        .hasMessage("HELLO.clientId: string of 300 bytes overruns the frame (3 left)");
  }

  static Stream<int[]> invalidUtf8() {
    return Stream.of(
        new int[] {0xC3, 0x28}, // a lead byte followed by a non-continuation byte
        new int[] {0xC0, 0xAF}, // overlong encoding of '/'
        new int[] {0xED, 0xA0, 0x80}, // an encoded UTF-16 surrogate
        new int[] {0xF4, 0x90, 0x80, 0x80}, // beyond U+10FFFF
        new int[] {0xE2, 0x82}, // truncated sequence
        new int[] {0x80}); // a lone continuation byte
  }

  @ParameterizedTest
  @MethodSource("invalidUtf8")
  void invalidUtf8IsRejected(int[] utf8) {
    decoding(RawFrame.of(FrameType.GOAWAY).u8(0).u32(0).varint(utf8.length).raw(utf8))
        .hasMessage("GOAWAY.message: string is not valid UTF-8");
  }

  @Test
  void reservedRequestFlagBitsAreRejected() {
    decoding(RawFrame.of(3, 0x41, 1).requestFields("s", "o"))
        .hasMessage("REQUEST: reserved flag bits set in 0x41");
  }

  @Test
  void flagsOnAFrameThatDefinesNoneAreRejected() {
    decoding(RawFrame.of(5, 0x01, 1)).hasMessage("CANCEL: flags must be 0, got 0x01");
  }

  @Test
  void requestIdOnAConnectionLevelFrameIsRejected() {
    decoding(RawFrame.of(6, 0, -1).u64(1)).hasMessage("PING: request id must be 0, got 4294967295");
  }

  static Stream<RawFrame> fixedLayoutsWithATrailingByte() {
    return Stream.of(
        RawFrame.of(FrameType.HELLO).string("c").u32(1024),
        RawFrame.of(FrameType.WELCOME)
            .string("s")
            .string("v")
            .varint(1)
            .u32(1024)
            .varint(1)
            .string("")
            .varint(0)
            .varint(7),
        RawFrame.of(5, 0, 1),
        RawFrame.of(FrameType.PING).u64(1),
        RawFrame.of(FrameType.PONG).u64(1),
        RawFrame.of(FrameType.GOAWAY).u8(0).u32(0).string(""),
        RawFrame.of(FrameType.BATCH).varint(0));
  }

  @ParameterizedTest
  @MethodSource("fixedLayoutsWithATrailingByte")
  void trailingBytesAfterAFixedLayoutPayloadAreRejected(RawFrame frame) {
    decoding(frame.u8(0)).hasMessageEndingWith(": 1 trailing bytes after the payload");
  }

  @Test
  void anEpochOfZeroOnTheWireIsRejected() {
    decoding(RawFrame.of(FrameType.TOPOLOGY).string("tcp -h b -p 1").varint(0).varint(0))
        .hasMessage("TOPOLOGY.epoch: must be positive when present, got 0");
  }

  @Test
  void fixedFieldCutShortIsRejected() {
    decoding(RawFrame.of(FrameType.PING).raw(1, 2, 3, 4, 5, 6, 7))
        .hasMessage("PING.data: needs 8 bytes but the frame has 7 left");
  }

  @Test
  void unknownStatusIsRejected() {
    decoding(RawFrame.of(4, 0, 1).u8(9).varint(0))
        .hasMessage("RESPONSE.status: unknown status code 9");
  }

  @Test
  void goAwayWithAReasonOfALaterVersionIsReadAsShutdown() {
    Frame frame =
        FrameReader.decode(RawFrame.of(FrameType.GOAWAY).u8(9).u32(7).string("bye").body());
    assertThat(frame).isEqualTo(new GoAway(GoAwayReason.SHUTDOWN, 7, "bye", 9));
  }

  @Test
  void metadataCountBeyondWhatTheFrameHoldsIsRejected() {
    decoding(RawFrame.of(4, 0, 1).u8(0).varint(1_000_000).raw(0, 0))
        .hasMessage("RESPONSE.metadata: count 1000000 cannot fit in the 2 bytes left");
  }

  @Test
  void repeatedMetadataKeyIsRejected() {
    decoding(RawFrame.of(4, 0, 1).u8(0).varint(2).string("k").string("1").string("k").string("2"))
        .hasMessage("RESPONSE.metadata: entry 1 repeats an earlier key");
  }

  @Test
  void maxFrameSizeOutsideTheAcceptedRangeIsRejected() {
    decoding(RawFrame.of(FrameType.HELLO).string("c").u32(0x8000_0000))
        .hasMessage("HELLO.maxFrameSize: 2147483648 is outside 6..2^31-1");
    decoding(RawFrame.of(FrameType.HELLO).string("c").u32(5))
        .hasMessage("HELLO.maxFrameSize: 5 is outside 6..2^31-1");
  }

  @Test
  void batchEntryOfAnotherTypeIsRejected() {
    byte[] ping = RawFrame.of(FrameType.PING).u64(0).withLength();

    decoding(RawFrame.of(FrameType.BATCH).varint(1).raw(ping).raw(new byte[10]))
        .hasMessage("BATCH: entry 0 has frame type 6; only REQUEST is allowed");
  }

  @Test
  void twowayBatchEntryIsRejected() {
    byte[] twoway = RawFrame.of(3, 0, 1).requestFields("s", "o").withLength();

    decoding(RawFrame.of(FrameType.BATCH).varint(1).raw(twoway))
        .hasMessage("BATCH: entry 0 is not ONEWAY");
  }

  @Test
  void batchEntryOverrunningTheBatchIsRejected() {
    byte[] entry = RawFrame.of(3, 1, 1).requestFields("s", "o").withLength();
    entry[3]++; // one byte longer than what follows

    decoding(RawFrame.of(FrameType.BATCH).varint(1).raw(entry))
        .hasMessage("BATCH: entry 0 has length 13, outside 6..12 (what is left of the batch)");
  }

  @Test
  void malformedBatchEntryIsNamedByItsIndex() {
    byte[] good = RawFrame.of(3, 1, 1).requestFields("s", "o").withLength();
    byte[] bad =
        RawFrame.of(3, 1, 2).string("s").varint(9).raw('o').varint(0).varint(0).withLength();

    decoding(RawFrame.of(FrameType.BATCH).varint(2).raw(good).raw(bad))
        .hasMessage(
            "BATCH: entry 1: REQUEST.operation: string of 9 bytes overruns the frame (3 left)");
  }

  @Test
  void batchCountBeyondWhatTheFrameHoldsIsRejected() {
    byte[] entry = RawFrame.of(3, 1, 1).requestFields("s", "o").withLength();

    decoding(RawFrame.of(FrameType.BATCH).varint(2).raw(entry))
        .hasMessage("BATCH.count: count 2 cannot fit in the 16 bytes left");
  }
}
