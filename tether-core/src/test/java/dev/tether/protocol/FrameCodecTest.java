package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class FrameCodecTest {

  static Stream<Frame> frames() {
    return SampleFrames.all();
  }

  @ParameterizedTest
  @MethodSource("frames")
  void everyFrameSurvivesARoundTrip(Frame frame) {
    ByteBuf out = Unpooled.buffer();
    FrameWriter.encode(frame, out);

    int length = out.readInt();
    assertThat(length).isEqualTo(out.readableBytes());
    Frame decoded = FrameReader.decode(out);

    assertThat(decoded).usingRecursiveComparison().isEqualTo(frame);
    assertThat(out.isReadable()).isFalse();
  }

  @ParameterizedTest
  @MethodSource("frames")
  void encodedSizeIsExactlyWhatEncodeWrites(Frame frame) {
    ByteBuf out = Unpooled.buffer();
    FrameWriter.encode(frame, out);

    assertThat(FrameWriter.encodedSize(frame)).isEqualTo(out.readableBytes());
  }

  @Test
  void encodeAppendsAfterWhatTheBufferAlreadyHolds() {
    ByteBuf out = Unpooled.buffer().writeBytes(new byte[] {1, 2, 3});

    FrameWriter.encode(new Cancel(9), out);

    assertThat(ByteBufUtil.hexDump(out))
        .isEqualTo("010203" + "00000006" + "05" + "00" + "00000009");
  }

  @Test
  void prefaceIsMagicMajorMinorAndTwoZeroBytes() {
    ByteBuf out = Unpooled.buffer();

    FrameWriter.writePreface(out);

    assertThat(ByteBufUtil.hexDump(out)).isEqualTo("5445544801040000");
  }

  @Test
  void prefaceCarriesTheCapabilityBitsInItsLastTwoBytes() {
    ByteBuf out = Unpooled.buffer();

    FrameWriter.writePreface(out, BodyCompression.ZSTD);

    assertThat(ByteBufUtil.hexDump(out)).isEqualTo("5445544801040001");
  }

  @Test
  void maxAgeNoticeMatchesTheExampleInTheProtocolDocument() {
    ByteBuf out = Unpooled.buffer();

    FrameWriter.encode(
        new GoAway(GoAwayReason.MAX_AGE, GoAway.UNTIL_FURTHER_NOTICE, "max connection age reached"),
        out);

    assertThat(ByteBufUtil.hexDump(out))
        .isEqualTo(
            "00000026"
                + "08"
                + "00"
                + "00000000"
                + "05"
                + "ffffffff"
                + "1a"
                + "6d617820636f6e6e656374696f6e2061676520726561636865"
                + "64");
  }

  @Test
  void topologyMatchesTheExampleInTheProtocolDocument() {
    ByteBuf out = Unpooled.buffer();

    FrameWriter.encode(new TopologyUpdate("tcp -h b -p 1", List.of()), out);

    assertThat(ByteBufUtil.hexDump(out))
        .isEqualTo(
            "00000015" + "0a" + "00" + "00000000" + "0d" + "746370202d682062202d702031" + "00");
  }

  @Test
  void topologyWithAnEpochMatchesTheExampleInTheProtocolDocument() {
    ByteBuf out = Unpooled.buffer();

    FrameWriter.encode(new TopologyUpdate("tcp -h b -p 1", List.of(), 300), out);

    assertThat(ByteBufUtil.hexDump(out))
        .isEqualTo(
            "00000017"
                + "0a"
                + "00"
                + "00000000"
                + "0d"
                + "746370202d682062202d702031"
                + "00"
                + "ac02");
  }

  @Test
  void aViewsEpochSurvivesTheRoundTripInWelcomeAndTopology() {
    Welcome welcome =
        new Welcome(
            "s", "1.0", 1000, 1024, 8, "tcp -h a -p 1", List.of("tcp -h b -p 2"), 8_589_934_598L);
    TopologyUpdate topology = new TopologyUpdate("tcp -h b -p 2", List.of(), 8_589_934_599L);
    ByteBuf out = Unpooled.buffer();

    FrameWriter.encode(welcome, out);
    FrameWriter.encode(topology, out);

    out.skipBytes(4);
    assertThat(FrameReader.decode(out.readSlice(FrameWriter.encodedSize(welcome) - 4)))
        .isEqualTo(welcome);
    out.skipBytes(4);
    assertThat(FrameReader.decode(out)).isEqualTo(topology);
  }

  @Test
  void aViewWithoutAnEpochReadsAsEpochZeroAsFromAnOlderServer() {
    ByteBuf out = Unpooled.buffer();
    FrameWriter.encode(new TopologyUpdate("tcp -h b -p 1", List.of()), out);

    out.skipBytes(4);
    assertThat(((TopologyUpdate) FrameReader.decode(out)).epoch()).isZero();
  }

  @Test
  void requestMatchesTheExampleInTheProtocolDocument() {
    byte[] body = {(byte) 0xCA, (byte) 0xFE};
    Request request =
        new Request(7, Request.IDEMPOTENT, "echo", "say", 1500, Map.of("k", "é"), body);
    ByteBuf out = Unpooled.buffer();

    FrameWriter.encode(request, out);

    assertThat(ByteBufUtil.hexDump(out))
        .isEqualTo(
            "00000019"
                + "03"
                + "02"
                + "00000007" // length 25, REQUEST, IDEMPOTENT, id 7
                + "04"
                + "6563686f" // service "echo"
                + "03"
                + "736179" // operation "say"
                + "dc0b" // deadlineMillis 1500
                + "01"
                + "01"
                + "6b"
                + "02"
                + "c3a9" // metadata {"k": "é"}
                + "cafe"); // body
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, Integer.MAX_VALUE})
  void varint32RoundTripsInItsShortestForm(int value) {
    ByteBuf out = Unpooled.buffer();

    PayloadWriter.writeVarint32(out, value);

    assertThat(out.readableBytes()).isEqualTo(PayloadWriter.varint32Size(value));
    int significantBits = Math.max(1, 32 - Integer.numberOfLeadingZeros(value));
    assertThat(out.readableBytes()).isEqualTo((significantBits + 6) / 7);
    assertThat(PayloadReader.readVarint32(out, "v")).isEqualTo(value);
    assertThat(out.isReadable()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(longs = {0, 127, 128, 1L << 35, 1L << 56, (1L << 63) - 1})
  void varint64RoundTripsInItsShortestForm(long value) {
    ByteBuf out = Unpooled.buffer();

    PayloadWriter.writeVarint64(out, value);

    assertThat(out.readableBytes()).isEqualTo(PayloadWriter.varint64Size(value));
    assertThat(PayloadReader.readVarint64(out, "v")).isEqualTo(value);
    assertThat(out.isReadable()).isFalse();
  }

  @Test
  void nonMinimalVarintsWithinTheByteLimitAreAccepted() {
    ByteBuf in = Unpooled.wrappedBuffer(new byte[] {(byte) 0x81, (byte) 0x80, (byte) 0x80, 0});

    assertThat(PayloadReader.readVarint32(in, "v")).isEqualTo(1);
  }

  @Test
  void unpairedSurrogatesTravelAsQuestionMarks() {
    Hello hello = new Hello("a\uD800b", 64);
    ByteBuf out = Unpooled.buffer();
    FrameWriter.encode(hello, out);

    assertThat(FrameWriter.encodedSize(hello)).isEqualTo(out.readableBytes());
    out.skipBytes(4);
    assertThat(((Hello) FrameReader.decode(out)).clientId()).isEqualTo("a?b");
  }

  @Test
  void decodedMetadataKeepsTheWireOrder() {
    ByteBuf frame =
        RawFrame.of(FrameType.RESPONSE)
            .u8(0)
            .varint(3)
            .string("z")
            .string("1")
            .string("a")
            .string("2")
            .string("m")
            .string("3")
            .body();

    Response response = (Response) FrameReader.decode(frame);

    assertThat(response.metadata().keySet()).containsExactly("z", "a", "m");
  }

  @Test
  void requestWithReservedFlagBitsIsNotEncodedAndTheBufferIsUntouched() {
    ByteBuf out = Unpooled.buffer().writeByte(1);
    Request request = new Request(1, 0x40, "s", "o", 0, Map.of(), new byte[0]);

    assertThatThrownBy(() -> FrameWriter.encode(request, out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reserved bits");
    assertThat(out.readableBytes()).isEqualTo(1);
  }

  @Test
  void requestWithANegativeDeadlineIsNotEncoded() {
    Request request = new Request(1, 0, "s", "o", -1, Map.of(), new byte[0]);

    assertThatThrownBy(() -> FrameWriter.encode(request, Unpooled.buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("REQUEST.deadlineMillis");
  }

  @Test
  void batchHoldingATwowayRequestIsNotEncodedAndTheBufferIsUntouched() {
    ByteBuf out = Unpooled.buffer();
    Batch batch = new Batch(List.of(SampleFrames.oneway(1, "a"), SampleFrames.bareRequest(2)));

    assertThatThrownBy(() -> FrameWriter.encode(batch, out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ONEWAY");
    assertThat(out.readableBytes()).isZero();
  }

  @Test
  void welcomeWithNegativeLimitsIsNotEncoded() {
    Welcome welcome = new Welcome("s", "1", -1, 1024, 10, "", List.of());

    assertThatThrownBy(() -> FrameWriter.encode(welcome, Unpooled.buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("WELCOME.heartbeatMillis");
  }

  @Test
  void helloWithAFrameSizeBelowTheHeaderIsNotEncoded() {
    assertThatThrownBy(() -> FrameWriter.encode(new Hello("c", 5), Unpooled.buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HELLO.maxFrameSize");
  }

  @Test
  void encodingIntoANewBufferUsesExactlyTheFrameSize() {
    TrackingAllocator allocator = new TrackingAllocator();
    Request request = SampleFrames.request(3);

    ByteBuf out = FrameWriter.encode(request, allocator);

    assertThat(allocator.largestRequest()).isEqualTo(out.readableBytes());
    assertThat(out.writableBytes()).isZero();
    out.release();
  }

  @Test
  void failedEncodingIntoANewBufferReleasesIt() {
    TrackingAllocator allocator = new TrackingAllocator();
    Request request = new Request(1, 0x40, "s", "o", 0, Map.of(), new byte[0]);

    assertThatThrownBy(() -> FrameWriter.encode(request, allocator))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(allocator.unreleased()).isZero();
  }
}
