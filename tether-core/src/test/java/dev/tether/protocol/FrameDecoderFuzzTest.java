package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.protocol.FrameDecoder.Side;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Feeds a server decoder, after a valid preface and HELLO, 20,000 seeded inputs (100,000 with
 * {@code -Plong}, any number with {@code -Dtether.fuzz.inputs=N}): random bytes, random bytes
 * behind a plausible header, and valid frames with bit flips, truncations, insertions, deletions
 * and length-field edits, each split into random reads. Whatever arrives, nothing may escape as an
 * exception or leak, and the decoder must end in one of three states: it emitted the frames the
 * length fields delimit, it is waiting for the rest of a frame, or it wrote one
 * GOAWAY(PROTOCOL_ERROR) and closed. The same input fed in one read must end the same way.
 */
class FrameDecoderFuzzTest {
  private static final long SEED = 0x7E7E_0001L;
  private static final int INPUTS = Integer.getInteger("tether.fuzz.inputs", 20_000);
  // Small, so that edited length fields often cross it.
  private static final int MAX_FRAME_SIZE = 512;
  private static final String ALPHABET = "ab-/.:0 éß世界🚀";
  private static final int[] INTERESTING_BYTES = {0x00, 0x01, 0x06, 0x7F, 0x80, 0xFF};

  private final Random random = new Random(SEED);

  /** How one input ended; frames are kept re-encoded so that outcomes compare by value. */
  private record Outcome(boolean refused, List<String> frames, String goAwayMessage) {}

  @Test
  void noInputEscapesAsAnExceptionLeaksOrLeavesTheDecoderUndecided() {
    int refused = 0;
    int decoded = 0;
    for (int i = 0; i < INPUTS; i++) {
      byte[] input = nextInput();
      Outcome outcome;
      try {
        outcome = run(randomReads(input));
        checkFramedByTheLengthFields(input, outcome);
        check(run(new byte[][] {input}).equals(outcome), "fed in one read, it ends differently");
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "input #" + i + " of seed " + SEED + ": " + ByteBufUtil.hexDump(input), e);
      }
      refused += outcome.refused() ? 1 : 0;
      decoded += outcome.frames().isEmpty() ? 0 : 1;
    }
    // The generator must reach both ends, or the run proves little.
    assertThat(refused).isGreaterThan(INPUTS / 4);
    assertThat(decoded).isGreaterThan(INPUTS / 20);
  }

  private byte[][] randomReads(byte[] input) {
    List<byte[]> reads = new ArrayList<>();
    for (int from = 0; from < input.length; ) {
      int to = Math.min(input.length, from + 1 + random.nextInt(random.nextBoolean() ? 4 : 64));
      reads.add(Arrays.copyOfRange(input, from, to));
      from = to;
    }
    return reads.toArray(new byte[0][]);
  }

  // Plain checks rather than AssertJ: this runs twice per input and the failure names the input.
  private static Outcome run(byte[][] reads) {
    try (DecoderHarness harness = new DecoderHarness(Side.SERVER, MAX_FRAME_SIZE)) {
      harness.handshake().feed(reads);
      List<String> frames = reencode(harness.frames());
      DecoderHarness.Written written = harness.written();
      if (harness.isOpen()) {
        check(written.frames().isEmpty(), "wrote a frame but stayed open");
        check(harness.violations().isEmpty(), "fired a violation but stayed open");
        return new Outcome(false, frames, null);
      }
      return new Outcome(true, frames, refusal(harness, written));
    }
  }

  private static String refusal(DecoderHarness harness, DecoderHarness.Written written) {
    check(!written.preface(), "a server past its handshake wrote a second preface");
    check(written.frames().size() == 1, "closed without writing exactly one frame");
    check(written.frames().get(0) instanceof GoAway, "closed without a GOAWAY");
    GoAway goAway = (GoAway) written.frames().get(0);
    check(goAway.reason() == GoAwayReason.PROTOCOL_ERROR, "GOAWAY reason is not PROTOCOL_ERROR");
    check(
        goAway.lastAcceptedId() == harness.decoder.highestRequestId(),
        "GOAWAY lastAcceptedId is not the highest request id emitted");
    check(harness.violations().size() == 1, "not exactly one violation event");
    check(
        harness.violations().get(0).cause().getMessage().equals(goAway.message()),
        "violation and GOAWAY disagree");
    return goAway.message();
  }

  /**
   * Each emitted frame is what the codec makes of the bytes its length field delimits, and
   * re-encodes to bytes that decode to the same frame; a decoder left open holds less than the next
   * frame, whose length field it has found acceptable.
   */
  private static void checkFramedByTheLengthFields(byte[] input, Outcome outcome) {
    ByteBuf in = Unpooled.wrappedBuffer(input);
    for (String frame : outcome.frames()) {
      String expected = reencode(FrameReader.decode(in.readSlice(in.readInt())));
      check(frame.equals(expected), "emitted a frame the codec decodes differently");
      ByteBuf again = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(frame)).skipBytes(4);
      check(reencode(FrameReader.decode(again)).equals(frame), "re-encoding is not stable");
    }
    if (!outcome.refused() && in.readableBytes() >= 4) {
      long length = in.getUnsignedInt(in.readerIndex());
      check(length >= 6 && length <= MAX_FRAME_SIZE, "open after an unacceptable length");
      check(in.readableBytes() < 4 + length, "open while holding a whole frame");
    }
  }

  private static void check(boolean condition, String problem) {
    if (!condition) {
      throw new AssertionError(problem);
    }
  }

  private static String reencode(Frame frame) {
    ByteBuf out = Unpooled.buffer();
    FrameWriter.encode(frame, out);
    return ByteBufUtil.hexDump(out);
  }

  private static List<String> reencode(List<Frame> frames) {
    List<String> encoded = new ArrayList<>(frames.size());
    for (Frame frame : frames) {
      encoded.add(reencode(frame));
    }
    return encoded;
  }

  // ---- input generation

  private byte[] nextInput() {
    int kind = random.nextInt(10);
    if (kind < 2) {
      return randomBytes(random.nextInt(random.nextBoolean() ? 16 : 300));
    }
    if (kind < 3) {
      return randomBytesBehindAPlausibleHeader();
    }
    return mutate(validFrames());
  }

  private byte[] randomBytes(int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private byte[] randomBytesBehindAPlausibleHeader() {
    byte[] payload = randomBytes(random.nextInt(40));
    ByteBuf frame =
        Unpooled.buffer()
            .writeInt(6 + payload.length + random.nextInt(3) - 1)
            .writeByte(1 + random.nextInt(9))
            .writeByte(random.nextInt(8) == 0 ? random.nextInt(256) : random.nextInt(2))
            .writeInt(random.nextInt(4))
            .writeBytes(payload);
    return ByteBufUtil.getBytes(frame);
  }

  /** One to three valid frames a client may send, sometimes one it may not. */
  private byte[] validFrames() {
    ByteBuf out = Unpooled.buffer();
    int count = 1 + random.nextInt(3);
    for (int i = 0; i < count; i++) {
      FrameWriter.encode(randomFrame(), out);
    }
    return ByteBufUtil.getBytes(out);
  }

  private Frame randomFrame() {
    return switch (random.nextInt(12)) {
      case 0, 1, 2 -> randomRequest(random.nextInt(2));
      case 3, 4 -> new Batch(randomOneways());
      case 5 -> new Cancel(random.nextInt());
      case 6 -> new Ping(random.nextLong());
      case 7 -> new Pong(random.nextLong());
      case 8 -> new GoAway(GoAwayReason.values()[random.nextInt(4)], random.nextInt(), text());
      case 9 -> new Response(random.nextInt(), Status.OK, metadata(), body());
      case 10 -> new Hello(text(), 6 + random.nextInt(1 << 20));
      default ->
          new Welcome(text(), text(), random.nextInt(5000), 1024, 100, text(), List.of(text()));
    };
  }

  private List<Request> randomOneways() {
    List<Request> requests = new ArrayList<>();
    for (int i = random.nextInt(4); i > 0; i--) {
      requests.add(randomRequest(Request.ONEWAY));
    }
    return requests;
  }

  private Request randomRequest(int oneway) {
    int flags = oneway | (random.nextBoolean() ? Request.IDEMPOTENT : 0);
    long deadlineMillis = random.nextBoolean() ? random.nextInt(10_000) : random.nextLong() >>> 1;
    return new Request(
        random.nextInt(100), flags, text(), text(), deadlineMillis, metadata(), body());
  }

  private Map<String, String> metadata() {
    Map<String, String> metadata = new LinkedHashMap<>();
    for (int i = random.nextInt(4); i > 0; i--) {
      metadata.put(text(), text());
    }
    return metadata;
  }

  private String text() {
    StringBuilder text = new StringBuilder();
    for (int i = random.nextInt(6); i > 0; i--) {
      text.appendCodePoint(
          ALPHABET.codePointAt(
              ALPHABET.offsetByCodePoints(
                  0, random.nextInt(ALPHABET.codePointCount(0, ALPHABET.length())))));
    }
    return text.toString();
  }

  private byte[] body() {
    return randomBytes(random.nextInt(24));
  }

  // ---- mutation

  private byte[] mutate(byte[] frames) {
    byte[] bytes = frames;
    int mutations = random.nextInt(4); // sometimes none: the valid frames themselves
    for (int i = 0; i < mutations; i++) {
      bytes = mutateOnce(bytes);
    }
    return bytes;
  }

  private byte[] mutateOnce(byte[] bytes) {
    if (bytes.length == 0) {
      return bytes;
    }
    int at = random.nextInt(bytes.length);
    return switch (random.nextInt(6)) {
      case 0 -> flipBit(bytes, at);
      case 1 -> Arrays.copyOf(bytes, at);
      case 2 -> insert(bytes, at, (byte) random.nextInt(256));
      case 3 -> delete(bytes, at);
      case 4 -> overwrite(bytes, at, (byte) INTERESTING_BYTES[random.nextInt(6)]);
      default -> editLengthField(bytes);
    };
  }

  private byte[] flipBit(byte[] bytes, int at) {
    byte[] copy = bytes.clone();
    copy[at] ^= (byte) (1 << random.nextInt(8));
    return copy;
  }

  private static byte[] insert(byte[] bytes, int at, byte value) {
    byte[] copy = new byte[bytes.length + 1];
    System.arraycopy(bytes, 0, copy, 0, at);
    copy[at] = value;
    System.arraycopy(bytes, at, copy, at + 1, bytes.length - at);
    return copy;
  }

  private static byte[] delete(byte[] bytes, int at) {
    byte[] copy = new byte[bytes.length - 1];
    System.arraycopy(bytes, 0, copy, 0, at);
    System.arraycopy(bytes, at + 1, copy, at, bytes.length - at - 1);
    return copy;
  }

  private static byte[] overwrite(byte[] bytes, int at, byte value) {
    byte[] copy = bytes.clone();
    copy[at] = value;
    return copy;
  }

  /** Rewrites the first frame's length field: off by a little, tiny, huge, or anything. */
  private byte[] editLengthField(byte[] bytes) {
    if (bytes.length < 4) {
      return bytes;
    }
    ByteBuf copy = Unpooled.wrappedBuffer(bytes.clone());
    int length = copy.getInt(0);
    int edited =
        switch (random.nextInt(5)) {
          case 0 -> length + random.nextInt(9) - 4;
          case 1 -> random.nextInt(7);
          case 2 -> MAX_FRAME_SIZE + random.nextInt(2);
          case 3 -> random.nextBoolean() ? Integer.MAX_VALUE : -1;
          default -> random.nextInt();
        };
    copy.setInt(0, edited);
    return copy.array();
  }
}
