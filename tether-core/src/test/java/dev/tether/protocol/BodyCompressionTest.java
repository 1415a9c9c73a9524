package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Protocol 1.1 compression: capability bits in the preface, COMPRESSED bodies, and their failures.
 */
class BodyCompressionTest {
  private static final byte[] TEXT = text(8 * 1024);

  @Test
  void aPeerThatAnnouncedZstdNegotiatesCompression() {
    BodyCompression bodies = BodyCompression.zstd(0);
    try (DecoderHarness server =
        new DecoderHarness(
            FrameDecoder.Side.SERVER, ProtocolVersion.DEFAULT_MAX_FRAME_SIZE, bodies)) {
      server.feed(preface(1, BodyCompression.ZSTD));

      assertThat(bodies.negotiated()).isTrue();
      assertThat(bodies.compressIfWorthIt(TEXT)).hasSizeLessThan(TEXT.length / 4);
    }
  }

  @Test
  void aPeerSpeaking10IsNotCompressedTo() {
    BodyCompression bodies = BodyCompression.zstd(0);
    try (DecoderHarness server =
        new DecoderHarness(
            FrameDecoder.Side.SERVER, ProtocolVersion.DEFAULT_MAX_FRAME_SIZE, bodies)) {
      // A 1.0 peer's last two bytes are reserved: they mean nothing, even when set.
      server.feed(preface(0, BodyCompression.ZSTD));

      assertThat(bodies.negotiated()).isFalse();
      assertThat(bodies.compressIfWorthIt(TEXT)).isNull();
    }
  }

  @Test
  void compressedRequestBodyArrivesDecompressedWithItsFlag() {
    try (DecoderHarness server = serverWithZstd(ProtocolVersion.DEFAULT_MAX_FRAME_SIZE)) {
      server.feed(preface(1, BodyCompression.ZSTD), DecoderHarness.encode(SampleFrames.hello()));
      server.frames();

      server.feed(DecoderHarness.encode(request(7, Request.COMPRESSED, compress(TEXT))));

      Request r = (Request) server.frames().get(0);
      assertThat(r.body()).isEqualTo(TEXT);
      assertThat(r.flags() & Request.COMPRESSED).isEqualTo(Request.COMPRESSED);
    }
  }

  @Test
  void compressedBodyToASideThatAnnouncedNoCompressionIsAProtocolError() {
    try (DecoderHarness server = new DecoderHarness(FrameDecoder.Side.SERVER).handshake()) {
      server.feed(DecoderHarness.encode(request(7, Request.COMPRESSED, compress(TEXT))));

      GoAway goAway = server.goAway();
      assertThat(goAway.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
      assertThat(goAway.message())
          .contains("REQUEST.body: compressed, but this side announced no compression");
      assertThat(server.isOpen()).isFalse();
    }
  }

  @Test
  void corruptCompressedBodyClosesTheConnectionWithAProtocolError() {
    byte[] corrupt = compress(TEXT);
    for (int i = 12; i < corrupt.length; i += 7) {
      corrupt[i] ^= 0x5a;
    }
    try (DecoderHarness server = serverWithZstd(ProtocolVersion.DEFAULT_MAX_FRAME_SIZE)) {
      server.feed(preface(1, BodyCompression.ZSTD), DecoderHarness.encode(SampleFrames.hello()));
      server.frames();

      server.feed(DecoderHarness.encode(request(9, Request.COMPRESSED, corrupt)));

      assertThat(server.frames()).isEmpty();
      GoAway goAway = server.goAway();
      assertThat(goAway.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
      assertThat(goAway.message()).startsWith("REQUEST.body: ");
      assertThat(server.isOpen()).isFalse();
    }
  }

  @Test
  void bodyThatWouldDecompressPastTheMaximumFrameSizeIsRefusedUnread() {
    byte[] bomb = compress(new byte[1024 * 1024]); // a few dozen bytes that claim a MiB
    try (DecoderHarness server = serverWithZstd(64 * 1024)) {
      server.feed(preface(1, BodyCompression.ZSTD), DecoderHarness.encode(SampleFrames.hello()));
      server.frames();

      server.feed(DecoderHarness.encode(request(3, Request.COMPRESSED, bomb)));

      assertThat(server.goAway().message())
          .isEqualTo(
              "REQUEST.body: decompresses to 1048576 bytes, over the maximum frame size of 65536");
    }
  }

  @Test
  void aZstdFrameWithoutItsContentSizeIsRefused() {
    byte[] withoutSize = compress(TEXT);
    withoutSize[4] =
        0; // frame header descriptor: no content size field, no checksum, no dictionary
    try (DecoderHarness server = serverWithZstd(ProtocolVersion.DEFAULT_MAX_FRAME_SIZE)) {
      server.feed(preface(1, BodyCompression.ZSTD), DecoderHarness.encode(SampleFrames.hello()));
      server.frames();

      server.feed(DecoderHarness.encode(request(3, Request.COMPRESSED, withoutSize)));

      assertThat(server.goAway().reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
      assertThat(server.isOpen()).isFalse();
    }
  }

  @Test
  void bytesThatAreNoZstdFrameAtAllAreAProtocolError() {
    byte[] garbage = "certainly not zstd, just text".getBytes(StandardCharsets.UTF_8);
    try (DecoderHarness server = serverWithZstd(ProtocolVersion.DEFAULT_MAX_FRAME_SIZE)) {
      server.feed(preface(1, BodyCompression.ZSTD), DecoderHarness.encode(SampleFrames.hello()));
      server.frames();

      server.feed(DecoderHarness.encode(request(3, Request.COMPRESSED, garbage)));

      GoAway goAway = server.goAway();
      assertThat(goAway.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
      assertThat(goAway.message()).startsWith("REQUEST.body: ");
      assertThat(server.isOpen()).isFalse();
    }
  }

  @Test
  void aClosedConnectionCompressesNothingMore() {
    BodyCompression bodies = negotiated(0);
    bodies.close();

    assertThat(bodies.compressIfWorthIt(TEXT)).isNull();
  }

  @Test
  void compressedResponseReachesTheSinkDecompressed() {
    BodyCompression bodies = BodyCompression.zstd(BodyCompression.DEFAULT_THRESHOLD);
    List<byte[]> answers = new ArrayList<>();
    try (DecoderHarness client =
        new DecoderHarness(
            FrameDecoder.Side.CLIENT, ProtocolVersion.DEFAULT_MAX_FRAME_SIZE, bodies)) {
      client.decoder.setResponseSink((id, status, metadata, body) -> answers.add(body));
      client.feed(preface(1, BodyCompression.ZSTD), DecoderHarness.encode(SampleFrames.welcome()));
      client.frames();

      client.feed(
          DecoderHarness.encode(
              new Response(5, Response.COMPRESSED, Status.OK, Map.of(), compress(TEXT))));

      assertThat(answers).containsExactly(TEXT);
    }
  }

  @Test
  void bodiesUpToTheThresholdTravelAsTheyAre() {
    BodyCompression bodies = negotiated(1024);

    assertThat(bodies.compressIfWorthIt(text(1024))).isNull();
    assertThat(bodies.compressIfWorthIt(text(1025))).isNotNull().hasSizeLessThan(1025);
  }

  @Test
  void bodiesCompressionWouldNotShrinkTravelAsTheyAre() {
    byte[] noise = new byte[4096];
    new Random(7).nextBytes(noise);

    assertThat(negotiated(0).compressIfWorthIt(noise)).isNull();
  }

  @Test
  void aSideWithCompressionDisabledAnnouncesNothingAndNeverCompresses() {
    BodyCompression off = BodyCompression.Settings.parse("false", null).forConnection();
    off.onPeerCapabilities(BodyCompression.ZSTD);

    assertThat(off.capabilities()).isZero();
    assertThat(off.compressIfWorthIt(TEXT)).isNull();
  }

  @Test
  void responseFlagsOtherThanCompressedAreReserved() {
    ByteBuf frame = Unpooled.buffer();
    FrameWriter.encode(new Response(1, Status.OK, Map.of(), new byte[0]), frame);
    frame.setByte(5, 0x01);
    frame.skipBytes(FrameHeader.LENGTH_FIELD_LENGTH);

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> FrameReader.decode(frame))
        .hasMessage("RESPONSE: reserved flag bits set in 0x01");
  }

  private static DecoderHarness serverWithZstd(int maxFrameSize) {
    return new DecoderHarness(
        FrameDecoder.Side.SERVER,
        maxFrameSize,
        BodyCompression.zstd(BodyCompression.DEFAULT_THRESHOLD));
  }

  private static BodyCompression negotiated(int threshold) {
    BodyCompression bodies = BodyCompression.zstd(threshold);
    bodies.onPeerCapabilities(BodyCompression.ZSTD);
    return bodies;
  }

  private static byte[] compress(byte[] body) {
    return com.github.luben.zstd.Zstd.compress(body, 1);
  }

  private static byte[] preface(int minor, int capabilities) {
    return new byte[] {
      'T', 'E', 'T', 'H', 1, (byte) minor, (byte) (capabilities >> 8), (byte) capabilities
    };
  }

  private static Request request(int id, int flags, byte[] body) {
    return new Request(id, flags, "echo", "say", 0, Map.of(), body);
  }

  private static byte[] text(int bytes) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; sb.length() < bytes; i++) {
      sb.append("{\"id\":").append(i).append(",\"name\":\"order ").append(i % 17).append("\"},");
    }
    sb.setLength(bytes);
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }
}
