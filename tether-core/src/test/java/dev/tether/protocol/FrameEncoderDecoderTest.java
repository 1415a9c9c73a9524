package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.protocol.FrameDecoder.Side;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Frames written through a {@link FrameEncoder} come out of a {@link FrameDecoder} unchanged. */
class FrameEncoderDecoderTest {
  private final TrackingAllocator allocator = new TrackingAllocator();
  private final EmbeddedChannel writer = new EmbeddedChannel(FrameEncoder.INSTANCE);

  FrameEncoderDecoderTest() {
    writer.config().setAllocator(allocator);
  }

  @AfterEach
  void nothingLeaks() {
    writer.finishAndReleaseAll();
    assertThat(allocator.unreleased()).isZero();
  }

  @Test
  void clientFramesReachTheServerUnchanged() {
    List<Frame> sent = new ArrayList<>(List.of(SampleFrames.hello()));
    sent.addAll(SampleFrames.clientFrames());

    assertArriveUnchanged(Side.SERVER, sent);
  }

  @Test
  void serverFramesReachTheClientUnchanged() {
    List<Frame> sent = new ArrayList<>(List.of(SampleFrames.welcome()));
    sent.addAll(SampleFrames.serverFrames());

    assertArriveUnchanged(Side.CLIENT, sent);
  }

  @Test
  void aBatchOfThreeRequestsArrivesAsOneFrame() {
    List<Frame> sent = List.of(SampleFrames.hello(), SampleFrames.batch());

    assertArriveUnchanged(Side.SERVER, sent);
  }

  @Test
  void eachFrameBecomesOneBufferOfExactlyItsSize() {
    Request request = SampleFrames.request(5);

    writer.writeOutbound(request);

    ByteBuf encoded = writer.readOutbound();
    assertThat(encoded.readableBytes()).isEqualTo(FrameWriter.encodedSize(request));
    assertThat(encoded.capacity()).isEqualTo(encoded.readableBytes());
    assertThat(writer.outboundMessages()).isEmpty();
    encoded.release();
  }

  @Test
  void byteBufsPassThroughUntouched() {
    ByteBuf preface = Unpooled.buffer();
    FrameWriter.writePreface(preface);

    writer.writeOutbound(preface);

    Object written = writer.readOutbound();
    assertThat(written).isSameAs(preface);
    assertThat(preface.refCnt()).isEqualTo(1);
    preface.release();
  }

  @Test
  void aFrameTheProtocolCannotCarryFailsItsWriteAndWritesNothing() {
    Request invalid = new Request(1, 0x80, "s", "o", 0, Map.of(), new byte[0]);

    ChannelFuture write = writer.writeAndFlush(invalid);

    assertThat(write.cause()).isInstanceOf(IllegalArgumentException.class);
    assertThat(writer.outboundMessages()).isEmpty();
    assertThat(writer.isOpen()).isTrue();
  }

  private void assertArriveUnchanged(Side receiver, List<Frame> sent) {
    byte[] wire = encodeThroughThePipeline(sent);
    try (DecoderHarness whole = new DecoderHarness(receiver);
        DecoderHarness byteByByte = new DecoderHarness(receiver)) {
      whole.feed(wire);
      byteByByte.feedByteByByte(wire);

      assertThat(whole.frames()).usingRecursiveFieldByFieldElementComparator().isEqualTo(sent);
      assertThat(byteByByte.frames()).usingRecursiveFieldByFieldElementComparator().isEqualTo(sent);
      assertThat(whole.isOpen()).isTrue();
      assertThat(whole.written().frames()).isEmpty();
    }
  }

  private byte[] encodeThroughThePipeline(List<Frame> frames) {
    ByteBuf wire = Unpooled.buffer();
    FrameWriter.writePreface(wire);
    for (Frame frame : frames) {
      writer.writeOutbound(frame);
      ByteBuf encoded = writer.readOutbound();
      wire.writeBytes(encoded);
      encoded.release();
    }
    byte[] bytes = new byte[wire.readableBytes()];
    wire.readBytes(bytes);
    return bytes;
  }
}
