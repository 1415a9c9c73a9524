package dev.tether.protocol;

import dev.tether.protocol.FrameDecoder.Side;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The properties every input to a {@link FrameDecoder} must satisfy, whoever produced it (Jazzer's
 * mutator or a corpus file): nothing escapes onto the channel and nothing leaks; the decoder either
 * emitted exactly the frames the length fields delimit and waits for the rest, or wrote one GOAWAY
 * that names the problem and closed; no buffer or heap allocation is sized by a length the peer
 * claims rather than by bytes received; every emitted frame re-encodes to its own bytes (up to
 * longer-than-needed varints, which decoders accept); and the input cut into small reads ends
 * exactly as it does in one read. Plain checks rather than AssertJ: this runs millions of times.
 */
final class DecoderProperties {
  /** Small enough that a fuzzer crosses it, large enough for every seed. */
  static final int MAX_FRAME_SIZE = 4096;

  // Generous: a run builds a channel, a pipeline and hex strings; split reads allocate per read.
  // A buffer sized from an unchecked length field (up to 2^32) would exceed it by far.
  private static final long HEAP_ALLOWANCE_BYTES = 1L << 20;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private DecoderProperties() {}

  /** How one input ended; frames are kept re-encoded so that outcomes compare by value. */
  record Outcome(boolean refused, GoAwayReason reason, List<String> frames, String message) {}

  /**
   * Feeds {@code input} to a decoder of {@code side} that has already read a valid preface and
   * handshake frame: the connection's frames phase.
   */
  static void checkAfterHandshake(Side side, byte[] input) {
    checkBothWays(side, true, input);
  }

  /** Feeds {@code input} to a fresh decoder of {@code side}: preface and handshake included. */
  static Outcome checkFromConnectionStart(Side side, byte[] input) {
    return checkBothWays(side, false, input);
  }

  private static Outcome checkBothWays(Side side, boolean handshakeDone, byte[] input) {
    Outcome whole = run(side, handshakeDone, new byte[][] {input}, input);
    byte[][] reads = splitByOwnBytes(input);
    Outcome split = run(side, handshakeDone, reads, input);
    check(
        whole.equals(split), "cut into small reads it ends differently: " + split + " vs " + whole);
    long allowance = HEAP_ALLOWANCE_BYTES + 64L * input.length;
    // Code reached for the first time loads and links classes, which allocates: only an input
    // that allocates too much on every run is sized by what the peer claims.
    for (int attempt = 0;
        heapAllocatedBy(side, handshakeDone, reads, input) > allowance;
        attempt++) {
      check(
          attempt < 2,
          "allocated over "
              + allowance
              + " heap bytes, three runs in a row, for "
              + input.length
              + " bytes of input");
    }
    return whole;
  }

  private static long heapAllocatedBy(
      Side side, boolean handshakeDone, byte[][] reads, byte[] input) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    run(side, handshakeDone, reads, input);
    return THREADS.getCurrentThreadAllocatedBytes() - before;
  }

  /** Reads of 1 to 8 bytes, their sizes taken from the input itself so a finding replays. */
  static byte[][] splitByOwnBytes(byte[] input) {
    List<byte[]> reads = new ArrayList<>();
    for (int from = 0; from < input.length; ) {
      int to = Math.min(input.length, from + 1 + (input[from] & 7));
      reads.add(Arrays.copyOfRange(input, from, to));
      from = to;
    }
    return reads.toArray(new byte[0][]);
  }

  private static Outcome run(Side side, boolean handshakeDone, byte[][] reads, byte[] input) {
    List<Frame> frames = new ArrayList<>();
    Outcome outcome;
    try (DecoderHarness harness = new DecoderHarness(side, MAX_FRAME_SIZE)) {
      if (handshakeDone) {
        harness.handshake();
      }
      harness.channel.pipeline().addLast(new FrameRecorder(frames));
      if (side == Side.CLIENT && handshakeDone) {
        // As ClientConnection does: responses after the handshake bypass the pipeline.
        harness.decoder.setResponseSink(
            (requestId, status, metadata, body) ->
                frames.add(new Response(requestId, status, metadata, body)));
      }
      harness.feed(reads);
      outcome = outcome(harness, side, handshakeDone, frames);
      check(
          harness.allocator.largestRequest() <= Math.max(1024, 2L * input.length + 64),
          "asked for a buffer of "
              + harness.allocator.largestRequest()
              + " bytes for "
              + input.length
              + " bytes of input");
    }
    checkFramedByTheLengthFields(
        input, handshakeDone ? 0 : ProtocolVersion.PREFACE_LENGTH, outcome);
    return outcome;
  }

  private static Outcome outcome(
      DecoderHarness harness, Side side, boolean handshakeDone, List<Frame> frames) {
    List<String> encoded = new ArrayList<>(frames.size());
    for (Frame frame : frames) {
      encoded.add(reencode(frame));
    }
    if (!handshakeDone && !frames.isEmpty()) {
      FrameType first = frames.get(0).type();
      check(
          side == Side.SERVER
              ? first == FrameType.HELLO
              : first == FrameType.WELCOME || first == FrameType.GOAWAY,
          "the first frame a " + side + " emitted is " + first);
    }
    DecoderHarness.Written written = harness.written();
    if (harness.isOpen()) {
      check(written.frames().isEmpty() && !written.preface(), "wrote something but stayed open");
      check(harness.violations().isEmpty(), "fired a violation but stayed open");
      return new Outcome(false, null, encoded, null);
    }
    // A server that has not finished its handshake owes the client its preface first.
    boolean prefaceOwed = side == Side.SERVER && frames.isEmpty() && !handshakeDone;
    check(
        written.preface() == prefaceOwed,
        prefaceOwed ? "refused before its handshake without a preface" : "wrote a second preface");
    check(
        written.frames().size() == 1 && written.frames().get(0) instanceof GoAway,
        "closed without writing exactly one GOAWAY: " + written.frames());
    GoAway goAway = (GoAway) written.frames().get(0);
    check(
        goAway.reason() == GoAwayReason.PROTOCOL_ERROR
            || goAway.reason() == GoAwayReason.UNSUPPORTED_VERSION,
        "GOAWAY reason " + goAway.reason());
    check(
        goAway.lastAcceptedId() == harness.decoder.highestRequestId(),
        "GOAWAY lastAcceptedId is not the highest request id emitted");
    check(harness.violations().size() == 1, "not exactly one violation event");
    ProtocolViolation violation = harness.violations().get(0);
    check(violation.reason() == goAway.reason(), "violation and GOAWAY disagree on the reason");
    check(
        violation.cause().getMessage().equals(goAway.message()),
        "violation and GOAWAY disagree on the message");
    check(!goAway.message().isBlank(), "GOAWAY does not say what was wrong");
    return new Outcome(true, goAway.reason(), encoded, goAway.message());
  }

  /**
   * Each emitted frame is what the codec makes of the bytes its length field delimits and
   * re-encodes to those bytes; a decoder left open holds less than the next whole frame.
   */
  private static void checkFramedByTheLengthFields(byte[] input, int skip, Outcome outcome) {
    ByteBuf in = Unpooled.wrappedBuffer(input);
    in.skipBytes(Math.min(skip, input.length));
    for (String frame : outcome.frames()) {
      byte[] original = ByteBufUtil.getBytes(in.readSlice(4 + in.getInt(in.readerIndex())));
      ByteBuf body = Unpooled.wrappedBuffer(original).skipBytes(4);
      String expected = reencode(FrameReader.decode(body));
      check(frame.equals(expected), "emitted a frame the codec decodes differently");
      byte[] again = ByteBufUtil.decodeHexDump(frame);
      // Only a varint longer than needed may shrink on the way back; nothing may grow or change.
      check(
          again.length < original.length || Arrays.equals(again, original),
          "re-encodes to other bytes: " + frame + " from " + ByteBufUtil.hexDump(original));
      ByteBuf reread = Unpooled.wrappedBuffer(again).skipBytes(4);
      check(reencode(FrameReader.decode(reread)).equals(frame), "re-encoding is not stable");
    }
    if (!outcome.refused() && in.readableBytes() >= 4) {
      long length = in.getUnsignedInt(in.readerIndex());
      check(length >= 6 && length <= MAX_FRAME_SIZE, "open after an unacceptable length " + length);
      check(in.readableBytes() < 4 + length, "open while holding a whole frame");
    }
  }

  /** Whether {@code input} opens with the bytes "TETH" (it may be shorter). */
  static boolean startsWithMagic(byte[] input) {
    byte[] magic = "TETH".getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < Math.min(4, input.length); i++) {
      if (input[i] != magic[i]) {
        return false;
      }
    }
    return true;
  }

  static void check(boolean condition, String problem) {
    if (!condition) {
      throw new AssertionError(problem);
    }
  }

  static String reencode(Frame frame) {
    ByteBuf out = Unpooled.buffer();
    FrameWriter.encode(frame, out);
    return ByteBufUtil.hexDump(out);
  }
}
