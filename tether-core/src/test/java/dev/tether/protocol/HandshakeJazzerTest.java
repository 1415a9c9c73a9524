package dev.tether.protocol;

import static dev.tether.protocol.DecoderProperties.check;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tether.FuzzRun;
import dev.tether.protocol.DecoderProperties.Outcome;
import dev.tether.protocol.FrameDecoder.Side;

/**
 * Coverage-guided fuzzing of a connection's opening bytes, preface and HELLO (server side) or
 * preface and WELCOME (client side), on a fresh decoder. Beyond {@link DecoderProperties}: a wrong
 * magic is refused with PROTOCOL_ERROR before anything is emitted, a well-formed preface of another
 * major version with UNSUPPORTED_VERSION, and the first frame emitted opens the handshake.
 */
class HandshakeJazzerTest {

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void serverAcceptsOnlyPrefaceThenHello(byte[] input) {
    checkPreface(input, DecoderProperties.checkFromConnectionStart(Side.SERVER, input));
  }

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void clientAcceptsOnlyPrefaceThenWelcomeOrGoAway(byte[] input) {
    checkPreface(input, DecoderProperties.checkFromConnectionStart(Side.CLIENT, input));
  }

  private static void checkPreface(byte[] input, Outcome outcome) {
    if (input.length >= 4 && !DecoderProperties.startsWithMagic(input)) {
      check(
          outcome.refused() && outcome.reason() == GoAwayReason.PROTOCOL_ERROR,
          "a wrong magic was not refused with PROTOCOL_ERROR");
      check(outcome.frames().isEmpty(), "emitted a frame after a wrong magic");
      return;
    }
    if (input.length < ProtocolVersion.PREFACE_LENGTH) {
      check(!outcome.refused() && outcome.frames().isEmpty(), "judged an incomplete preface");
      return;
    }
    boolean otherMajor = input[4] != ProtocolVersion.MAJOR;
    check(outcome.refused() || !otherMajor, "accepted major version " + (input[4] & 0xFF));
    if (outcome.refused()) {
      check(
          (outcome.reason() == GoAwayReason.UNSUPPORTED_VERSION) == otherMajor,
          "refused with " + outcome.reason() + " a preface of major " + (input[4] & 0xFF));
    }
  }
}
