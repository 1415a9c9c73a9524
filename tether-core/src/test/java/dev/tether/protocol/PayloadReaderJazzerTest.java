package dev.tether.protocol;

import static dev.tether.protocol.DecoderProperties.check;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tether.FuzzRun;
import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Coverage-guided fuzzing of {@link PayloadReader}, the primitive reads every frame is made of.
 * Jazzer picks a sequence of reads (from the end of its input) and the bytes they read (the rest).
 * Each read either returns a value whose encoding is the bytes it consumed (a longer-than-needed
 * varint excepted, which then re-reads to the same value), or throws {@link ProtocolException}
 * whose message starts with the field it was reading, having read nothing past the frame. Names
 * read through a {@link NameCache} equal the same bytes read without it.
 */
class PayloadReaderJazzerTest {
  private static final int READS = 11;
  private static final String FIELD = "FUZZ.field";

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void everyReadReturnsWhatItsBytesEncodeOrNamesTheField(FuzzedDataProvider data) {
    int[] reads = new int[data.consumeInt(1, 8)];
    for (int i = 0; i < reads.length; i++) {
      reads[i] = data.consumeInt(0, READS - 1);
    }
    byte[] bytes = data.consumeRemainingAsBytes();
    ByteBuf in = Unpooled.wrappedBuffer(bytes);
    NameCache names = new NameCache();
    for (int read : reads) {
      int start = in.readerIndex();
      try {
        readOnce(read, in, names);
      } catch (ProtocolException e) {
        check(e.getMessage().startsWith(FIELD + ": "), "message does not name the field: " + e);
        check(in.readerIndex() <= in.writerIndex(), "read past the frame");
        return; // a frame fails as a whole at its first malformed field
      }
      check(in.readerIndex() >= start, "went backwards");
    }
  }

  private static void readOnce(int read, ByteBuf in, NameCache names) {
    int start = in.readerIndex();
    switch (read) {
      case 0 -> check(PayloadReader.readU8(in, FIELD) == in.getUnsignedByte(start), "u8");
      case 1 -> check(PayloadReader.readU32(in, FIELD) == in.getInt(start), "u32");
      case 2 -> check(PayloadReader.readU64(in, FIELD) == in.getLong(start), "u64");
      case 3 -> {
        int value = PayloadReader.readVarint32(in, FIELD);
        check(value >= 0, "negative varint32 " + value);
        checkVarint(
            in,
            start,
            5,
            out -> PayloadWriter.writeVarint32(out, value),
            again -> PayloadReader.readVarint32(again, FIELD) == value);
      }
      case 4 -> {
        long value = PayloadReader.readVarint64(in, FIELD);
        check(value >= 0, "negative varint64 " + value);
        checkVarint(
            in,
            start,
            10,
            out -> PayloadWriter.writeVarint64(out, value),
            again -> PayloadReader.readVarint64(again, FIELD) == value);
      }
      case 5, 6 -> {
        int minItemBytes = read == 5 ? 1 : 14;
        int count = PayloadReader.readCount(in, minItemBytes, FIELD);
        check(count >= 0 && count <= in.readableBytes() / minItemBytes, "count " + count);
      }
      case 7, 9 -> {
        String value =
            read == 7
                ? PayloadReader.readString(in, FIELD)
                : PayloadReader.readName(in, FIELD, names);
        checkString(in, start, value);
        String cached = PayloadReader.readName(in.duplicate().readerIndex(start), FIELD, names);
        check(cached.equals(value), "the name cache gives " + cached + " for " + value);
      }
      case 8 -> {
        Map<String, String> metadata = PayloadReader.readMetadata(in, FIELD);
        ByteBuf out = Unpooled.buffer();
        PayloadWriter.writeMetadata(out, metadata);
        check(out.readableBytes() == PayloadWriter.metadataSize(metadata), "metadataSize");
        checkReencoded(in, start, out);
        check(
            PayloadReader.readMetadata(out, FIELD).equals(metadata),
            "metadata re-reads differently");
      }
      default -> {
        byte[] rest = PayloadReader.readRest(in);
        check(!in.isReadable(), "rest left bytes");
        check(Arrays.equals(rest, ByteBufUtil.getBytes(in, start, rest.length)), "rest differs");
        PayloadReader.requireEnd(in, FrameType.CANCEL);
      }
    }
  }

  private interface Writer {
    void write(ByteBuf out);
  }

  private interface Reread {
    boolean same(ByteBuf again);
  }

  private static void checkVarint(
      ByteBuf in, int start, int maxBytes, Writer writer, Reread reread) {
    int consumed = in.readerIndex() - start;
    check(consumed >= 1 && consumed <= maxBytes, "varint of " + consumed + " bytes");
    ByteBuf out = Unpooled.buffer();
    writer.write(out);
    checkReencoded(in, start, out);
    check(reread.same(out), "varint re-reads differently");
  }

  /** The shortest form is what was read, or shorter when the peer padded a varint. */
  private static void checkReencoded(ByteBuf in, int start, ByteBuf out) {
    int consumed = in.readerIndex() - start;
    byte[] original = ByteBufUtil.getBytes(in, start, consumed);
    byte[] again = ByteBufUtil.getBytes(out);
    check(
        again.length < consumed || Arrays.equals(original, again),
        "re-encodes " + ByteBufUtil.hexDump(original) + " as " + ByteBufUtil.hexDump(again));
  }

  private static void checkString(ByteBuf in, int start, String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    check(in.readerIndex() - start >= utf8.length + 1, "string shorter than its bytes");
    // Strict UTF-8 decodes one way only: the string's bytes are exactly the ones read.
    byte[] read = ByteBufUtil.getBytes(in, in.readerIndex() - utf8.length, utf8.length);
    check(Arrays.equals(read, utf8), "string " + value + " does not re-encode to its bytes");
    ByteBuf out = Unpooled.buffer();
    PayloadWriter.writeString(out, value);
    check(out.readableBytes() == PayloadWriter.stringSize(value), "stringSize");
    checkReencoded(in, start, out);
  }
}
