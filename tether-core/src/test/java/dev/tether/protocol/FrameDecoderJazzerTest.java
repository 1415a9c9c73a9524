package dev.tether.protocol;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tether.FuzzRun;
import dev.tether.protocol.FrameDecoder.Side;

/**
 * Coverage-guided fuzzing of the frames phase of a connection, both directions: Jazzer mutates the
 * bytes that follow a valid preface and handshake, and {@link DecoderProperties} states what must
 * hold for each input. The normal build replays the corpus under {@code
 * src/test/resources/dev/tether/protocol/FrameDecoderJazzerTestInputs/}; a run with {@code
 * JAZZER_FUZZ=1} explores further (docs/reliability.md).
 */
class FrameDecoderJazzerTest {

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void serverDecoderEmitsDelimitedFramesOrRefusesWithOneGoAway(byte[] input) {
    DecoderProperties.checkAfterHandshake(Side.SERVER, input);
  }

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void clientDecoderEmitsDelimitedFramesOrRefusesWithOneGoAway(byte[] input) {
    DecoderProperties.checkAfterHandshake(Side.CLIENT, input);
  }
}
