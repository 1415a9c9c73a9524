package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tether.FuzzRun;
import io.grpc.Status;
import io.grpc.StatusException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzzing of a gRPC stream's DATA bytes, cut into frames of any size, through
 * {@link MessageDeframer} with a message size limit and gzip allowed or not, asking for messages
 * after each frame as a stream does. Whatever arrives, the messages handed out are exactly those
 * the prefixes delimit, in order, with their compressed flag; a bad flag ends it with INTERNAL and
 * a length over the limit with RESOURCE_EXHAUSTED (before anything of that size is allocated), and
 * no other exception escapes; the counts of bytes received and handed out are exact; nothing
 * buffered leaks. The normal build replays the corpus under {@code
 * src/test/resources/dev/tether/grpc/MessageDeframerJazzerTestInputs/}.
 */
class MessageDeframerJazzerTest {
  private static final int PREFIX = 5;

  @FuzzTest(maxDuration = FuzzRun.MAX_DURATION)
  void handsOutExactlyTheMessagesThePrefixesDelimitOrRefusesWithTheirStatus(
      FuzzedDataProvider data) {
    boolean gzip = data.consumeBoolean();
    int maxMessageSize = data.consumeInt(0, 512);
    List<byte[]> frames = new ArrayList<>();
    while (data.remainingBytes() > 0 && frames.size() < 32) {
      frames.add(data.consumeBytes(data.consumeInt(0, 96)));
    }
    Expected expected = Expected.parse(concat(frames), maxMessageSize, gzip);

    MessageDeframer deframer =
        new MessageDeframer(new UnpooledByteBufAllocator(false), maxMessageSize, gzip);
    List<MessageDeframer.Message> out = new ArrayList<>();
    List<ByteBuf> added = new ArrayList<>();
    Status.Code refused = null;
    try {
      for (byte[] frame : frames) {
        ByteBuf frameBytes = bufferOf(frame);
        added.add(frameBytes);
        deframer.add(frameBytes);
        for (MessageDeframer.Message m = deframer.next(); m != null; m = deframer.next()) {
          out.add(m);
        }
      }
    } catch (StatusException e) {
      refused = e.getStatus().getCode();
    }

    assertThat(out).hasSameSizeAs(expected.messages);
    for (int i = 0; i < out.size(); i++) {
      assertThat(out.get(i).bytes()).isEqualTo(expected.messages.get(i).bytes());
      assertThat(out.get(i).compressed()).isEqualTo(expected.messages.get(i).compressed());
    }
    assertThat(refused).isEqualTo(expected.refused);
    assertThat(deframer.handedOut()).isEqualTo(expected.delimited);
    if (refused == null) {
      assertThat(deframer.received()).isEqualTo(expected.total);
      assertThat(deframer.isEmpty()).isEqualTo(expected.delimited == expected.total);
    }
    deframer.release();
    added.forEach(ByteBuf::release);
    assertThat(added).allMatch(b -> b.refCnt() == 0, "every frame released");
  }

  private static byte[] concat(List<byte[]> frames) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    frames.forEach(all::writeBytes);
    return all.toByteArray();
  }

  /** What gRPC's message framing makes of the whole stream, read at once. */
  private record Expected(
      List<MessageDeframer.Message> messages, Status.Code refused, long delimited, long total) {

    static Expected parse(byte[] stream, int maxMessageSize, boolean gzip) {
      List<MessageDeframer.Message> messages = new ArrayList<>();
      int at = 0;
      while (stream.length - at >= PREFIX) {
        int flag = stream[at] & 0xFF;
        long length =
            ((stream[at + 1] & 0xFFL) << 24)
                | ((stream[at + 2] & 0xFFL) << 16)
                | ((stream[at + 3] & 0xFFL) << 8)
                | (stream[at + 4] & 0xFFL);
        if (flag != 0 && !(flag == 1 && gzip)) {
          return new Expected(messages, Status.Code.INTERNAL, at, stream.length);
        }
        if (length > maxMessageSize) {
          return new Expected(messages, Status.Code.RESOURCE_EXHAUSTED, at, stream.length);
        }
        if (stream.length - at < PREFIX + length) {
          break;
        }
        int from = at + PREFIX;
        messages.add(
            new MessageDeframer.Message(
                Arrays.copyOfRange(stream, from, from + (int) length), flag == 1));
        at = from + (int) length;
      }
      return new Expected(messages, null, at, stream.length);
    }
  }

  /**
   * A buffer of its own even when empty: Netty hands out one shared empty buffer, which no release
   * frees, for an empty array or a zero capacity.
   */
  private static ByteBuf bufferOf(byte[] bytes) {
    return Unpooled.buffer(bytes.length, bytes.length + 1).writeBytes(bytes);
  }
}
