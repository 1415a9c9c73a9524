package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusException;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MessageDeframerTest {
  private static byte[] framed(int flag, byte[] message) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(flag);
    out.write(message.length >>> 24);
    out.write(message.length >>> 16);
    out.write(message.length >>> 8);
    out.write(message.length);
    out.writeBytes(message);
    return out.toByteArray();
  }

  private static void add(MessageDeframer deframer, byte[] bytes, int from, int to) {
    ByteBuf data = Unpooled.wrappedBuffer(bytes, from, to - from);
    deframer.add(data);
    data.release();
  }

  @Test
  void cutsMessagesOutWhereverTheDataFramesBreak() throws Exception {
    Random random = new Random(38);
    for (int round = 0; round < 200; round++) {
      List<byte[]> sent = new ArrayList<>();
      ByteArrayOutputStream wire = new ByteArrayOutputStream();
      for (int m = random.nextInt(5); m >= 0; m--) {
        byte[] message = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(3000)];
        random.nextBytes(message);
        sent.add(message);
        wire.writeBytes(framed(0, message));
      }
      byte[] bytes = wire.toByteArray();
      MessageDeframer deframer = new MessageDeframer(ByteBufAllocator.DEFAULT, 1 << 20, false);
      List<byte[]> received = new ArrayList<>();

      for (int at = 0; at < bytes.length; ) {
        int next = Math.min(bytes.length, at + 1 + random.nextInt(700));
        add(deframer, bytes, at, next);
        at = next;
        for (MessageDeframer.Message m = deframer.next(); m != null; m = deframer.next()) {
          received.add(m.bytes());
        }
      }

      assertThat(received).containsExactlyElementsOf(sent);
      assertThat(deframer.isEmpty()).isTrue();
      assertThat(deframer.handedOut()).isEqualTo(deframer.received()).isEqualTo(bytes.length);
      deframer.release();
    }
  }

  @Test
  void refusesAnOversizedMessageAtItsPrefixBeforeItsBytesArrive() {
    MessageDeframer deframer = new MessageDeframer(ByteBufAllocator.DEFAULT, 100, false);
    byte[] prefix = {0, 0, 0, 0, 101};
    add(deframer, prefix, 0, prefix.length);

    assertThatThrownBy(deframer::next)
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    deframer.release();
  }

  @Test
  void refusesACompressedMessageOnAStreamWithoutGzipAndPassesItOnAStreamWithIt() throws Exception {
    byte[] bytes = framed(1, new byte[] {1, 2, 3});
    MessageDeframer identity = new MessageDeframer(ByteBufAllocator.DEFAULT, 100, false);
    MessageDeframer gzip = new MessageDeframer(ByteBufAllocator.DEFAULT, 100, true);
    add(identity, bytes, 0, bytes.length);
    add(gzip, bytes, 0, bytes.length);

    assertThatThrownBy(identity::next)
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL));
    assertThat(gzip.next().compressed()).isTrue();
    identity.release();
    gzip.release();
  }

  @Test
  void holdsAPartialMessageUntilTheRestArrives() throws Exception {
    byte[] bytes = framed(0, new byte[] {7, 8, 9});
    MessageDeframer deframer = new MessageDeframer(ByteBufAllocator.DEFAULT, 100, false);

    add(deframer, bytes, 0, 6);
    assertThat(deframer.next()).isNull();
    assertThat(deframer.handedOut()).isZero();
    add(deframer, bytes, 6, bytes.length);

    assertThat(deframer.next().bytes()).containsExactly(7, 8, 9);
    deframer.release();
  }

  @Test
  void keepsNoSliceOfTheReadBufferAUnfinishedMessageArrivedIn() throws Exception {
    byte[] bytes = framed(0, new byte[] {7, 8, 9});
    MessageDeframer deframer = new MessageDeframer(ByteBufAllocator.DEFAULT, 100, false);
    // The connection's read buffer: 64 KiB, of which this stream's DATA is 6 bytes.
    ByteBuf read = Unpooled.buffer(64 * 1024).writeZero(100).writeBytes(bytes, 0, 6);
    deframer.add(read.slice(100, 6));

    assertThat(deframer.next()).isNull();
    deframer.keepRest();
    assertThat(read.release()).as("the read buffer is freed").isTrue();
    add(deframer, bytes, 6, bytes.length);

    assertThat(deframer.next().bytes()).containsExactly(7, 8, 9);
    assertThat(deframer.isEmpty()).isTrue();
    deframer.release();
  }

  @Test
  void aMessageOneByteShortOfItsEndTakesNoMoreRoomThanItself() throws Exception {
    int size = 1024 * 1024;
    byte[] bytes = framed(0, new byte[size]);
    UnpooledByteBufAllocator counted = new UnpooledByteBufAllocator(false);
    MessageDeframer deframer = new MessageDeframer(counted, size, false);
    for (int at = 0; at < bytes.length - 1; at += 16 * 1024) {
      add(deframer, bytes, at, Math.min(at + 16 * 1024, bytes.length - 1));
      assertThat(deframer.next()).isNull();
      deframer.keepRest();
    }

    assertThat(counted.metric().usedHeapMemory()).isEqualTo(size + 5);
    add(deframer, bytes, bytes.length - 1, bytes.length);
    assertThat(deframer.next().bytes()).hasSize(size);
    assertThat(counted.metric().usedHeapMemory()).isZero();
    deframer.release();
  }

  @Test
  void aMessageBehindASmallOneOneByteShortOfItsEndTakesNoMoreRoomThanItself() throws Exception {
    int size = 1024 * 1024;
    byte[] small = framed(0, new byte[] {1});
    byte[] large = framed(0, new byte[size]);
    byte[] bytes = new byte[small.length + large.length];
    System.arraycopy(small, 0, bytes, 0, small.length);
    System.arraycopy(large, 0, bytes, small.length, large.length);
    UnpooledByteBufAllocator counted = new UnpooledByteBufAllocator(false);
    MessageDeframer deframer = new MessageDeframer(counted, size, false);
    // The small message ends inside the buffer kept, so the large one starts past its front.
    add(deframer, bytes, 0, 3);
    deframer.keepRest();
    add(deframer, bytes, 3, 100);
    assertThat(deframer.next().bytes()).containsExactly(1);
    for (int at = 100; at < bytes.length - 1; at += 16 * 1024) {
      add(deframer, bytes, at, Math.min(at + 16 * 1024, bytes.length - 1));
      assertThat(deframer.next()).isNull();
      deframer.keepRest();
    }

    assertThat(counted.metric().usedHeapMemory()).isEqualTo(size + 5);
    add(deframer, bytes, bytes.length - 1, bytes.length);
    assertThat(deframer.next().bytes()).hasSize(size);
    deframer.release();
  }

  @Test
  void theRoomALargeMessageTookIsGivenBackWhenItIsReadThoughTheNextMessageHasBegun()
      throws Exception {
    // A client finishes each large message in the frame that begins its next one: what is kept
    // is a byte or two, and must not cost the large message's room, which the budget does not see.
    int size = 1024 * 1024;
    byte[] large = framed(0, new byte[size]);
    byte[] bytes = new byte[large.length + 2];
    System.arraycopy(large, 0, bytes, 0, large.length);
    UnpooledByteBufAllocator counted = new UnpooledByteBufAllocator(false);
    MessageDeframer deframer = new MessageDeframer(counted, size, false);
    for (int at = 0; at < large.length - 1; at += 16 * 1024) {
      add(deframer, bytes, at, Math.min(at + 16 * 1024, large.length - 1));
      deframer.keepRest();
    }
    add(deframer, bytes, large.length - 1, bytes.length);

    assertThat(deframer.next().bytes()).hasSize(size);
    assertThat(deframer.next()).isNull();
    deframer.keepRest();
    assertThat(counted.metric().usedHeapMemory()).isLessThanOrEqualTo(256);
    deframer.release();
  }

  /** Heap buffers that count the bytes copied into them (writes, compaction, growth). */
  private static final class CopyCounting extends AbstractByteBufAllocator {
    long copied;

    CopyCounting() {
      super(false);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity) {
        @Override
        public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
          copied += length;
          return super.setBytes(index, src, srcIndex, length);
        }

        @Override
        public ByteBuf capacity(int newCapacity) {
          copied += Math.min(capacity(), newCapacity);
          return super.capacity(newCapacity);
        }
      };
    }
  }

  @Test
  void aServiceReadingSmallMessagesOneByOneFromAFullWindowCopiesEachByteAFewTimesOnly()
      throws Exception {
    // A client streams 6-byte messages faster than its service asks for them: the stream's whole
    // window (1 MiB) waits, and each message taken earns the client room for one more.
    byte[] one = framed(0, new byte[] {7});
    int window = GrpcConnection.WINDOW;
    byte[] full = new byte[window - window % one.length];
    for (int at = 0; at < full.length; at += one.length) {
      System.arraycopy(one, 0, full, at, one.length);
    }
    CopyCounting counted = new CopyCounting();
    MessageDeframer deframer = new MessageDeframer(counted, 1024, false);
    for (int at = 0; at < full.length; at += 16 * 1024) {
      add(deframer, full, at, Math.min(at + 16 * 1024, full.length));
      deframer.keepRest();
    }
    long before = counted.copied;
    // Two windows' worth, so a one-time growth of the buffer does not count for much.
    int rounds = 2 * full.length / one.length;
    for (int i = 0; i < rounds; i++) {
      assertThat(deframer.next().bytes()[0]).isEqualTo((byte) 7);
      add(deframer, one, 0, one.length);
      deframer.keepRest();
    }

    long perByte = (counted.copied - before) / ((long) rounds * one.length);
    assertThat(perByte).as("bytes copied per byte received").isLessThanOrEqualTo(3);
    deframer.release();
  }

  @Test
  void aMaximumSizeMessageSentOneByteAFrameIsCopiedAFewTimesOnly() throws Exception {
    int size = GrpcServices.DEFAULT_MAX_INBOUND_MESSAGE_SIZE;
    byte[] bytes = framed(0, new byte[size]);
    CopyCounting counted = new CopyCounting();
    MessageDeframer deframer = new MessageDeframer(counted, size, false);
    for (int at = 0; at < bytes.length - 1; at++) {
      add(deframer, bytes, at, at + 1);
      assertThat(deframer.next()).isNull();
      deframer.keepRest();
    }
    add(deframer, bytes, bytes.length - 1, bytes.length);

    assertThat(deframer.next().bytes()).hasSize(size);
    assertThat(counted.copied / bytes.length).as("bytes copied per byte received").isLessThan(4);
    deframer.release();
  }
}
