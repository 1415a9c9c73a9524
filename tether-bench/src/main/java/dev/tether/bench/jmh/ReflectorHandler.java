package dev.tether.bench.jmh;

import dev.tether.protocol.FrameHeader;
import dev.tether.protocol.FrameType;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.Request;
import dev.tether.protocol.Status;
import dev.tether.protocol.Welcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * The server end of one connection of {@link ReflectorServer}: just enough of protocol v1
 * (docs/protocol.md) for a Tether client to call it. It reads the client's preface and HELLO and
 * answers with its own preface and a WELCOME encoded once by {@link FrameWriter}; after that it
 * answers each twoway REQUEST with {@code RESPONSE(same request id, OK, no metadata, same body)}
 * and each PING with a PONG; everything else is skipped. It checks nothing beyond the magic: the
 * client under test is Tether's own.
 *
 * <p>Nothing is allocated per call (Netty's leak detector aside, which at its default level samples
 * one pooled buffer in 128): frames are read where they lie in Netty's pooled read buffer, and the
 * replies of one read batch are written back to back into one pooled buffer and flushed once when
 * the batch is read. The body is copied into that buffer rather than passed on as a retained slice:
 * for small bodies a copy is cheaper than a slice and a separate header buffer per reply, and a
 * read batch stays one buffer and one write. Confined to the channel's event loop.
 */
final class ReflectorHandler extends ByteToMessageDecoder {

  /** Replies are written out once the buffer holding them passes this size. */
  private static final int MAX_REPLY_BATCH_BYTES = 64 * 1024;

  private static final int INITIAL_REPLY_BATCH_BYTES = 4 * 1024;

  /** Type, flags and request id: the part of a frame the length field counts before the payload. */
  private static final int HEADER_BYTES = FrameHeader.HEADER_LENGTH;

  /** A RESPONSE's payload before its body: a status byte and an empty metadata count (varint 0). */
  private static final int RESPONSE_PREFIX_BYTES = 2;

  private static final int PING_DATA_BYTES = 8;

  /** The server's side of the handshake: preface and WELCOME, the same for every connection. */
  private static final byte[] OPENING = encodeOpening();

  /** True once the client's preface and HELLO were read and answered. */
  private boolean welcomed;

  /** Replies of the current read batch not yet written; non-null only while there are some. */
  private ByteBuf replies;

  private static byte[] encodeOpening() {
    Welcome welcome =
        new Welcome(
            "reflector",
            "0.0.0",
            20_000,
            ProtocolVersion.DEFAULT_MAX_FRAME_SIZE,
            10_000,
            "",
            List.of());
    ByteBuf opening =
        Unpooled.buffer(ProtocolVersion.PREFACE_LENGTH + FrameWriter.encodedSize(welcome));
    FrameWriter.writePreface(opening);
    FrameWriter.encode(welcome, opening);
    return ByteBufUtil.getBytes(opening);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (!welcomed && !readOpening(ctx, in)) {
      return;
    }
    while (hasWholeFrame(in)) {
      handleFrame(ctx, in);
    }
  }

  /** Reads the client's preface and HELLO once both are whole, and answers them. */
  private boolean readOpening(ChannelHandlerContext ctx, ByteBuf in) {
    int start = in.readerIndex();
    if (in.readableBytes() >= 4 && in.getInt(start) != ProtocolVersion.MAGIC) {
      in.skipBytes(in.readableBytes());
      ctx.close();
      return false;
    }
    int helloStart = start + ProtocolVersion.PREFACE_LENGTH;
    if (in.readableBytes() < ProtocolVersion.PREFACE_LENGTH + FrameHeader.LENGTH_FIELD_LENGTH) {
      return false;
    }
    long helloEnd = helloStart + FrameHeader.LENGTH_FIELD_LENGTH + in.getUnsignedInt(helloStart);
    if (in.writerIndex() < helloEnd) {
      return false;
    }
    in.readerIndex((int) helloEnd);
    welcomed = true;
    ctx.writeAndFlush(ctx.alloc().ioBuffer(OPENING.length).writeBytes(OPENING), ctx.voidPromise());
    return true;
  }

  private static boolean hasWholeFrame(ByteBuf in) {
    int readable = in.readableBytes();
    return readable >= FrameHeader.LENGTH_FIELD_LENGTH
        && readable - FrameHeader.LENGTH_FIELD_LENGTH >= in.getUnsignedInt(in.readerIndex());
  }

  /** Answers one whole frame and moves {@code in} past it. */
  private void handleFrame(ChannelHandlerContext ctx, ByteBuf in) {
    int length = in.readInt();
    int end = in.readerIndex() + length;
    int type = in.readUnsignedByte();
    int flags = in.readUnsignedByte();
    int requestId = in.readInt();
    if (type == FrameType.REQUEST.code() && (flags & Request.ONEWAY) == 0) {
      skipToBody(in);
      reply(ctx, FrameType.RESPONSE, requestId, in, end - in.readerIndex());
    } else if (type == FrameType.PING.code()) {
      reply(ctx, FrameType.PONG, 0, in, PING_DATA_BYTES);
    }
    in.readerIndex(end);
  }

  /** Skips a REQUEST's service, operation, deadline and metadata. */
  private static void skipToBody(ByteBuf in) {
    skipString(in);
    skipString(in);
    skipVarint(in);
    int entries = readVarint(in);
    for (int i = 0; i < entries; i++) {
      skipString(in);
      skipString(in);
    }
  }

  /**
   * Appends {@code type(requestId)} to the reply batch: for RESPONSE, status OK and no metadata
   * before the body; for PONG, the PING's data. Copies {@code bodyBytes} bytes from {@code in}.
   */
  private void reply(
      ChannelHandlerContext ctx, FrameType type, int requestId, ByteBuf in, int bodyBytes) {
    int prefixBytes = type == FrameType.RESPONSE ? RESPONSE_PREFIX_BYTES : 0;
    int length = HEADER_BYTES + prefixBytes + bodyBytes;
    ByteBuf out = replyBuffer(ctx, FrameHeader.LENGTH_FIELD_LENGTH + length);
    out.writeInt(length);
    out.writeByte(type.code());
    out.writeByte(0);
    out.writeInt(requestId);
    if (type == FrameType.RESPONSE) {
      out.writeByte(Status.OK.code());
      out.writeByte(0);
    }
    out.writeBytes(in, in.readerIndex(), bodyBytes);
  }

  /** The batch buffer with room for {@code frameBytes} more, writing out a full one first. */
  private ByteBuf replyBuffer(ChannelHandlerContext ctx, int frameBytes) {
    if (replies != null && replies.readableBytes() + frameBytes > MAX_REPLY_BATCH_BYTES) {
      ctx.write(replies, ctx.voidPromise());
      replies = null;
    }
    if (replies == null) {
      replies = ctx.alloc().ioBuffer(Math.max(INITIAL_REPLY_BATCH_BYTES, frameBytes));
    }
    return replies;
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    if (replies != null) {
      ctx.write(replies, ctx.voidPromise());
      replies = null;
      ctx.flush();
    }
    super.channelReadComplete(ctx);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    if (replies != null) {
      replies.release();
      replies = null;
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  private static void skipString(ByteBuf in) {
    in.skipBytes(readVarint(in));
  }

  private static void skipVarint(ByteBuf in) {
    while (in.readByte() < 0) {
      // each byte with its high bit set is followed by another
    }
  }

  /** An unsigned LEB128 value; Tether's client writes only valid ones. */
  private static int readVarint(ByteBuf in) {
    int value = 0;
    for (int shift = 0; ; shift += 7) {
      byte b = in.readByte();
      value |= (b & 0x7F) << shift;
      if (b >= 0) {
        return value;
      }
    }
  }
}
