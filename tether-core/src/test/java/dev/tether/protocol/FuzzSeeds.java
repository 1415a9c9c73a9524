package dev.tether.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the seed corpus of the protocol's Jazzer targets: valid frames of every type in each
 * direction, whole handshakes, and a few malformed ones the hand-written tests already pin. Run
 * from tether-core with the test class path; the files are checked in, so this only needs running
 * again when the seeds should change.
 */
final class FuzzSeeds {
  private static final Path ROOT = Path.of("src/test/resources/dev/tether/protocol");

  private FuzzSeeds() {}

  public static void main(String[] args) throws IOException {
    write(
        "FrameDecoderJazzerTestInputs/serverDecoderEmitsDelimitedFramesOrRefusesWithOneGoAway",
        framesEach(SampleFrames.clientFrames()));
    write(
        "FrameDecoderJazzerTestInputs/clientDecoderEmitsDelimitedFramesOrRefusesWithOneGoAway",
        framesEach(SampleFrames.serverFrames()));
    write(
        "HandshakeJazzerTestInputs/serverAcceptsOnlyPrefaceThenHello",
        List.of(
            opening(SampleFrames.hello()),
            opening(SampleFrames.hello(), SampleFrames.request(1), new Ping(7)),
            DecoderHarness.concat(DecoderHarness.preface(2, 0), encode(SampleFrames.hello()))));
    write(
        "HandshakeJazzerTestInputs/clientAcceptsOnlyPrefaceThenWelcomeOrGoAway",
        List.of(
            opening(SampleFrames.welcome()),
            opening(SampleFrames.welcomeWithoutTopology(), SampleFrames.okResponse(1)),
            opening(new GoAway(GoAwayReason.UNSUPPORTED_VERSION, 0, "speak 1.x"))));
    write(
        "PayloadReaderJazzerTestInputs/everyReadReturnsWhatItsBytesEncodeOrNamesTheField",
        payloadReads());
  }

  private static List<byte[]> framesEach(List<Frame> frames) {
    List<byte[]> seeds = new ArrayList<>();
    for (Frame frame : frames) {
      seeds.add(encode(frame));
    }
    seeds.add(encode(frames.toArray(new Frame[0])));
    return seeds;
  }

  private static byte[] opening(Frame... frames) {
    return DecoderHarness.concat(DecoderHarness.preface(), encode(frames));
  }

  private static byte[] encode(Frame... frames) {
    return DecoderHarness.encode(frames);
  }

  /**
   * Payload bytes followed by the read choices as the FuzzedDataProvider takes them: from the end,
   * first the number of reads (1..8), then each read (0..10).
   */
  private static List<byte[]> payloadReads() {
    ByteBuf request = Unpooled.wrappedBuffer(encode(SampleFrames.request(3))).skipBytes(10);
    byte[] fields = ByteBufUtil.getBytes(request);
    return List.of(
        // string, string, varint64, metadata, rest: a REQUEST payload
        withReads(fields, 7, 9, 4, 8, 10),
        withReads(new byte[] {(byte) 0x81, (byte) 0x80, (byte) 0x80, 0}, 3),
        withReads(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, 0, 1, 2, 5, 6));
  }

  private static byte[] withReads(byte[] payload, int... reads) {
    byte[] seed = new byte[payload.length + 1 + reads.length];
    System.arraycopy(payload, 0, seed, 0, payload.length);
    int end = seed.length - 1;
    seed[end--] = (byte) (reads.length - 1); // consumeInt(1, 8): 1 + byte % 8
    for (int read : reads) {
      seed[end--] = (byte) read;
    }
    return seed;
  }

  private static void write(String dir, List<byte[]> seeds) throws IOException {
    Path target = ROOT.resolve(dir);
    Files.createDirectories(target);
    for (int i = 0; i < seeds.size(); i++) {
      Files.write(target.resolve("seed-" + i), seeds.get(i));
    }
  }
}
