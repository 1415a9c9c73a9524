package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.protocol.FrameDecoder.Side;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The decoder's opening: preface, then the one frame that may open the handshake. */
class FrameDecoderHandshakeTest {
  private DecoderHarness harness;

  @AfterEach
  void nothingLeaks() {
    harness.close();
  }

  private DecoderHarness server() {
    return harness = new DecoderHarness(Side.SERVER);
  }

  private DecoderHarness client() {
    return harness = new DecoderHarness(Side.CLIENT);
  }

  @Test
  void serverEmitsHelloAfterAGoodPreface() {
    server().feed(DecoderHarness.preface(), DecoderHarness.encode(SampleFrames.hello()));

    assertThat(harness.frames())
        .singleElement()
        .usingRecursiveComparison()
        .isEqualTo(SampleFrames.hello());
    assertThat(harness.isOpen()).isTrue();
    assertThat(harness.written().frames()).isEmpty();
  }

  @Test
  void prefaceOfANewerMinorVersionIsAccepted() {
    server().feed(DecoderHarness.preface(1, 9), DecoderHarness.encode(SampleFrames.hello()));

    assertThat(harness.frames()).hasSize(1);
    assertThat(harness.isOpen()).isTrue();
  }

  @Test
  void decoderKnowsTheMinorVersionThePeersPrefaceAnnounced() {
    server();
    assertThat(harness.decoder.peerMinorVersion()).as("before the preface").isEqualTo(-1);

    harness.feed(DecoderHarness.preface(1, 0), DecoderHarness.encode(SampleFrames.hello()));

    assertThat(harness.decoder.peerMinorVersion()).isZero();
  }

  @Test
  void serverRefusesATopologyFrameWhichOnlyServersSend() {
    server().handshake().feed(DecoderHarness.encode(SampleFrames.topology()));

    assertThat(harness.goAway().message()).isEqualTo("TOPOLOGY frame sent to a server");
  }

  @Test
  void anotherMajorVersionIsAnsweredWithPrefaceAndUnsupportedVersionThenClosed() {
    server().feed(DecoderHarness.preface(2, 0), DecoderHarness.encode(SampleFrames.hello()));

    DecoderHarness.Written written = harness.written();
    assertThat(written.preface()).as("server preface before its GOAWAY").isTrue();
    assertThat(written.frames())
        .singleElement()
        .isInstanceOfSatisfying(
            GoAway.class,
            goAway -> {
              assertThat(goAway.reason()).isEqualTo(GoAwayReason.UNSUPPORTED_VERSION);
              assertThat(goAway.message())
                  .isEqualTo("peer speaks protocol 2.0, this side speaks 1.x");
            });
    assertThat(harness.isOpen()).isFalse();
    assertThat(harness.frames()).isEmpty();
    assertThat(harness.violations())
        .singleElement()
        .extracting(ProtocolViolation::reason)
        .isEqualTo(GoAwayReason.UNSUPPORTED_VERSION);
  }

  @Test
  void garbagePrefaceIsRefusedAsSoonAsTheMagicIsWrong() {
    server().feed("GET ".getBytes(StandardCharsets.US_ASCII));

    assertThat(harness.goAway().reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
    assertThat(harness.isOpen()).isFalse();
    assertThat(harness.violations())
        .singleElement()
        .satisfies(
            violation -> {
              assertThat(violation.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
              assertThat(violation.cause())
                  .hasMessage("preface does not start with \"TETH\": 0x47455420");
            });
  }

  @Test
  void requestBeforeHelloIsAProtocolError() {
    server().feed(DecoderHarness.preface(), DecoderHarness.encode(SampleFrames.request(1)));

    GoAway goAway = harness.goAway();
    assertThat(goAway.reason()).isEqualTo(GoAwayReason.PROTOCOL_ERROR);
    assertThat(goAway.message()).isEqualTo("REQUEST frame before handshake");
    assertThat(goAway.lastAcceptedId()).isZero();
    assertThat(harness.isOpen()).isFalse();
    assertThat(harness.frames()).isEmpty();
  }

  @Test
  void serverRefusesAFrameBeforeHandshakeOnItsTypeByteAlone() {
    server().feed(DecoderHarness.preface(), new byte[] {0, 0, 0, 100, 3});

    assertThat(harness.goAway().message()).isEqualTo("REQUEST frame before handshake");
  }

  @Test
  void secondHelloIsAProtocolError() {
    server().handshake().feed(DecoderHarness.encode(SampleFrames.hello()));

    assertThat(harness.goAway().message()).isEqualTo("HELLO frame after the handshake");
    assertThat(harness.isOpen()).isFalse();
  }

  @Test
  void clientEmitsWelcomeAfterAGoodPreface() {
    client().feed(DecoderHarness.preface(), DecoderHarness.encode(SampleFrames.welcome()));

    assertThat(harness.frames())
        .singleElement()
        .usingRecursiveComparison()
        .isEqualTo(SampleFrames.welcome());
    assertThat(harness.isOpen()).isTrue();
  }

  @Test
  void clientAcceptsGoAwayInPlaceOfWelcome() {
    GoAway refusal = new GoAway(GoAwayReason.SHUTDOWN, 0, "draining");

    client().feed(DecoderHarness.preface(), DecoderHarness.encode(refusal));

    assertThat(harness.frames()).singleElement().isEqualTo(refusal);
    assertThat(harness.isOpen()).isTrue();
  }

  @Test
  void clientRefusesAnyOtherFirstFrameAndSendsNoPreface() {
    client().feed(DecoderHarness.preface(), DecoderHarness.encode(SampleFrames.response(1)));

    DecoderHarness.Written written = harness.written();
    assertThat(written.preface()).as("a client has sent its preface already").isFalse();
    assertThat(written.frames())
        .singleElement()
        .isInstanceOfSatisfying(
            GoAway.class,
            goAway -> assertThat(goAway.message()).isEqualTo("RESPONSE frame before handshake"));
    assertThat(harness.isOpen()).isFalse();
  }

  @Test
  void clientRefusesAServerOfAnotherMajorVersion() {
    client().feed(DecoderHarness.preface(0, 3));

    assertThat(harness.goAway().reason()).isEqualTo(GoAwayReason.UNSUPPORTED_VERSION);
    assertThat(harness.violations())
        .singleElement()
        .extracting(v -> v.cause().getMessage())
        .isEqualTo("peer speaks protocol 0.3, this side speaks 1.x");
  }

  @Test
  void serverRefusesFramesOnlyServersSend() {
    server().handshake().feed(DecoderHarness.encode(SampleFrames.okResponse(1)));

    assertThat(harness.goAway().message()).isEqualTo("RESPONSE frame sent to a server");
  }

  @Test
  void clientRefusesFramesOnlyClientsSend() {
    client()
        .handshake()
        .feed(DecoderHarness.encode(new dev.tether.protocol.Batch(java.util.List.of())));

    assertThat(harness.goAway().message()).isEqualTo("BATCH frame sent to a client");
  }

  @Test
  void afterTheHandshakeBothSidesExchangePingPongAndGoAway() {
    Frame[] both = {new Ping(1), new Pong(1), new GoAway(GoAwayReason.IDLE_TIMEOUT, 0, "idle")};

    server().handshake().feed(DecoderHarness.encode(both));
    assertThat(harness.frames()).hasSize(3);
    harness.close();
    client().handshake().feed(DecoderHarness.encode(both));
    assertThat(harness.frames()).hasSize(3);
  }
}
