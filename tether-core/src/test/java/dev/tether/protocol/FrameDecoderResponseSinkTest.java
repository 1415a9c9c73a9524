package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A client decoder hands the responses of one read to its sink, several per decode call. */
class FrameDecoderResponseSinkTest {
  private static final byte[] UNKNOWN_TYPE_FRAME = {0, 0, 0, 6, 0x7F, 0};

  @Test
  void framesOfOneReadReachTheSinkAndThePipelineInTheirOrder() {
    List<Frame> seen = new ArrayList<>();
    try (DecoderHarness harness = new DecoderHarness(FrameDecoder.Side.CLIENT).handshake()) {
      harness.decoder.setResponseSink(
          (requestId, status, metadata, body) ->
              seen.add(new Response(requestId, status, metadata, body)));
      harness.channel.pipeline().addLast(new FrameRecorder(seen));
      harness.feed(
          DecoderHarness.encode(
              SampleFrames.okResponse(1),
              SampleFrames.okResponse(2),
              new Ping(7),
              SampleFrames.okResponse(3),
              SampleFrames.response(4)));
      assertThat(seen)
          .extracting(f -> f.type() + " " + (f instanceof Ping ping ? ping.data() : f.requestId()))
          .containsExactly("RESPONSE 1", "RESPONSE 2", "PING 7", "RESPONSE 3", "RESPONSE 4");
      assertThat(harness.isOpen()).isTrue();
    }
  }

  @Test
  void aMalformedFrameAfterResponsesInOneReadClosesTheConnectionOnceTheyAreHandedOver() {
    List<String> seen = new ArrayList<>();
    try (DecoderHarness harness = new DecoderHarness(FrameDecoder.Side.CLIENT).handshake()) {
      harness.decoder.setResponseSink(
          (requestId, status, metadata, body) -> seen.add("response " + requestId));
      harness.feed(
          DecoderHarness.concat(
              DecoderHarness.encode(SampleFrames.okResponse(1), SampleFrames.okResponse(2)),
              UNKNOWN_TYPE_FRAME));
      assertThat(seen).containsExactly("response 1", "response 2");
      assertThat(harness.violations())
          .singleElement()
          .satisfies(v -> assertThat(v.cause()).hasMessageContaining("unknown frame type 127"));
      assertThat(harness.goAway().reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
      assertThat(harness.isOpen()).isFalse();
    }
  }

  @Test
  void aDecoderRemovedByAResponseLeavesTheRestOfTheReadToTheNextHandler() {
    List<Integer> sunk = new ArrayList<>();
    byte[] second = DecoderHarness.encode(SampleFrames.okResponse(2));
    try (DecoderHarness harness = new DecoderHarness(FrameDecoder.Side.CLIENT).handshake()) {
      harness.decoder.setResponseSink(
          (requestId, status, metadata, body) -> {
            sunk.add(requestId);
            harness.channel.pipeline().remove(harness.decoder);
          });
      harness.feed(
          DecoderHarness.concat(DecoderHarness.encode(SampleFrames.okResponse(1)), second));
      assertThat(sunk).containsExactly(1);
      ByteBuf rest = harness.channel.readInbound();
      try {
        assertThat(ByteBufUtil.getBytes(rest)).isEqualTo(second);
      } finally {
        rest.release();
      }
    }
  }
}
