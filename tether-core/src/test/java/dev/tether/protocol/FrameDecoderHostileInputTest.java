package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ProtocolException;
import dev.tether.protocol.FrameDecoder.Side;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a server's decoder does with a peer that breaks the protocol after a good handshake: one
 * GOAWAY(PROTOCOL_ERROR) naming the problem, the channel closed, nothing thrown, nothing leaked.
 */
class FrameDecoderHostileInputTest {
  private static final int MAX_FRAME_SIZE = 4096;

  private final DecoderHarness harness =
      new DecoderHarness(Side.SERVER, MAX_FRAME_SIZE).handshake();

  @AfterEach
  void nothingLeaks() {
    harness.close();
  }

  private void assertRefusedWith(String message) {
    GoAway goAway = harness.goAway();
    assertThat(goAway.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
    assertThat(goAway.message()).isEqualTo(message);
    assertThat(harness.isOpen()).isFalse();
    assertThat(harness.violations())
        .singleElement()
        .satisfies(v -> assertThat(v.cause()).hasMessage(message));
  }

  @Test
  void rejectsOversizedLengthBeforeAllocatingTheBody() {
    harness.feed(new byte[] {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 3, 0, 0, 0, 0, 1});

    assertRefusedWith("frame length 2147483647 exceeds the maximum of 4096");
    assertThat(harness.allocator.largestRequest()).isLessThan(256);
  }

  @Test
  void rejectsALengthOverTheMaximumFromItsFourBytesAlone() {
    harness.feed(new byte[] {0, 0, 0x10, 0x01});

    assertRefusedWith("frame length 4097 exceeds the maximum of 4096");
  }

  @Test
  void rejectsAnUnsignedLengthAboveTwoToTheThirtyOne() {
    harness.feed(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});

    assertRefusedWith("frame length 4294967295 exceeds the maximum of 4096");
  }

  @Test
  void rejectsALengthBelowTheHeader() {
    harness.feed(new byte[] {0, 0, 0, 5, 3, 0, 0, 0, 0});

    assertRefusedWith("frame length 5 is below the 6-byte header");
  }

  @Test
  void aLoweredMaximumAppliesToTheNextFrame() {
    byte[] request = DecoderHarness.encode(SampleFrames.request(1));
    harness.feed(request);
    assertThat(harness.frames()).hasSize(1);

    harness.decoder.setMaxFrameSize(request.length - 5);
    harness.feed(request);

    assertRefusedWith(
        "frame length " + (request.length - 4) + " exceeds the maximum of " + (request.length - 5));
  }

  @Test
  void aMaximumBelowTheHeaderIsRefused() {
    assertThatThrownBy(() -> new FrameDecoder(Side.SERVER, 5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> harness.decoder.setMaxFrameSize(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(harness.decoder.maxFrameSize()).isEqualTo(MAX_FRAME_SIZE);
  }

  @Test
  void rejectsAnUnknownTypeBeforeTheBodyArrives() {
    harness.feed(new byte[] {0, 0, 0x0F, (byte) 0xA0, 42});

    assertRefusedWith("unknown frame type 42");
  }

  @Test
  void rejectsAMalformedVarint() {
    harness.feed(
        RawFrame.of(3, 0, 1)
            .string("s")
            .string("o")
            .raw(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80)
            .withLength());

    assertRefusedWith("REQUEST.deadlineMillis: varint is longer than 10 bytes");
  }

  @Test
  void rejectsASixByteVarintCount() {
    harness.feed(RawFrame.of(FrameType.BATCH).raw(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01).withLength());

    assertRefusedWith("BATCH.count: varint is longer than 5 bytes");
  }

  @Test
  void rejectsAStringPastTheEndOfTheFrame() {
    harness.feed(RawFrame.of(3, 0, 1).varint(10).raw('e', 'c', 'h', 'o').withLength());

    assertRefusedWith("REQUEST.service: string of 10 bytes overruns the frame (4 left)");
  }

  @Test
  void rejectsInvalidUtf8() {
    harness.feed(
        RawFrame.of(3, 0, 1)
            .varint(2)
            .raw(0xC3, 0x28)
            .string("o")
            .varint(0)
            .varint(0)
            .withLength());

    assertRefusedWith("REQUEST.service: string is not valid UTF-8");
  }

  @Test
  void rejectsUnknownFlagBits() {
    harness.feed(RawFrame.of(3, 0x40, 1).requestFields("s", "o").withLength());

    assertRefusedWith("REQUEST: reserved flag bits set in 0x40");
  }

  @Test
  void rejectsTrailingBytes() {
    harness.feed(RawFrame.of(FrameType.PING).u64(7).u8(0).withLength());

    assertRefusedWith("PING: 1 trailing bytes after the payload");
  }

  @Test
  void framesBeforeTheViolationAreDeliveredAndTheGoAwayNamesTheLastOne() {
    byte[] good =
        DecoderHarness.encode(
            SampleFrames.request(7),
            new Batch(List.of(SampleFrames.oneway(9, "a"))),
            SampleFrames.request(8));

    harness.feed(good, new byte[] {0, 0, 0, 6, 77, 0});

    assertThat(harness.frames())
        .extracting(Frame::type)
        .containsExactly(FrameType.REQUEST, FrameType.BATCH, FrameType.REQUEST);
    assertThat(harness.decoder.highestRequestId()).isEqualTo(9);
    assertThat(harness.goAway().lastAcceptedId()).isEqualTo(9);
  }

  @Test
  void aViolationRaisedWithoutAReasonIsAProtocolError() {
    ProtocolException cause = new ProtocolException("bad");

    assertThat(new ProtocolViolation(cause).reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
  }

  @Test
  void requestIdsCompareUnsigned() {
    harness.feed(DecoderHarness.encode(SampleFrames.request(-2), SampleFrames.request(5)));

    assertThat(harness.decoder.highestRequestId()).isEqualTo(-2);
  }

  @Test
  void bytesAfterTheViolationInTheSameReadAreNotDecoded() {
    byte[] badThenGood =
        DecoderHarness.concat(
            new byte[] {0, 0, 0, 6, 99, 0, 0, 0, 0, 0},
            DecoderHarness.encode(SampleFrames.request(1)));

    harness.feed(badThenGood);

    assertThat(harness.frames()).isEmpty();
    assertRefusedWith("unknown frame type 99");
  }

  @Test
  void aPeerThatKeepsSendingAfterTheGoAwayGetsNothingMore() {
    harness.channel.pipeline().addFirst(new CloseSwallower());

    harness.feed(new byte[] {0, 0, 0, 6, 99, 0, 0, 0, 0, 0});
    harness.feed(DecoderHarness.encode(SampleFrames.request(1)), new byte[] {1, 2, 3});

    assertThat(harness.frames()).isEmpty();
    assertThat(harness.written().frames()).hasSize(1);
    assertThat(harness.violations()).hasSize(1);
  }

  /** Keeps the channel open, as a real socket is until the close completes. */
  private static final class CloseSwallower extends ChannelOutboundHandlerAdapter {
    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
      promise.setSuccess();
    }
  }
}
