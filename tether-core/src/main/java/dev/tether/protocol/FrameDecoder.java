package dev.tether.protocol;

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Reads one side of a stream connection: the peer's preface, its handshake frame, then frames,
 * emitting each as a {@link Frame} once its last byte has arrived. On any violation it stops
 * decoding for good, writes GOAWAY (encoded here, so no encoder is needed in the pipeline), closes
 * the channel and fires a {@link ProtocolViolation} event; it never throws. One per channel; all
 * methods are called on the channel's event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {

  /** Which end of the connection this decoder reads for. */
  public enum Side {
    /** Reads what a server sends: WELCOME (or GOAWAY) first, then RESPONSE, PING, PONG, GOAWAY. */
    CLIENT,
    /** Reads what a client sends: HELLO first, then REQUEST, BATCH, CANCEL, PING, PONG, GOAWAY. */
    SERVER
  }

  private enum State {
    /** Waiting for the peer's 8-byte preface. */
    AWAIT_PREFACE,
    /** Preface read; the next frame must open the handshake. */
    AWAIT_HANDSHAKE,
    /** Handshake frame emitted; every frame this side may receive is accepted. */
    FRAMES,
    /** A violation was answered with GOAWAY; input is discarded from now on. Terminal. */
    FAILED
  }

  private static final int TYPE_OFFSET = FrameHeader.LENGTH_FIELD_LENGTH;

  private final Side side;
  private int maxFrameSize;
  private State state = State.AWAIT_PREFACE;
  private int highestRequestId;

  /** The minor version the peer's preface announced; -1 until the preface has arrived. */
  private int peerMinorVersion = -1;

  /** Names of recently received requests; only a server side receives requests. */
  private final NameCache names;

  /** Non-null when RESPONSE frames go straight to a client connection. */
  private ResponseSink responseSink;

  /** Decompresses bodies that travelled compressed and learns what the peer's preface announced. */
  private final BodyCompression bodies;

  /**
   * A decoder that announced no compression: a compressed body is a protocol error.
   *
   * @param side the end of the connection this decoder reads for
   * @param maxFrameSize the largest length field accepted, i.e. header plus payload in bytes
   */
  public FrameDecoder(Side side, int maxFrameSize) {
    this(side, maxFrameSize, BodyCompression.disabled());
  }

  /**
   * @param bodies the connection's compression, which this decoder tells the peer's capabilities
   *     and uses to decompress bodies; a body may decompress to at most {@code maxFrameSize} bytes
   */
  public FrameDecoder(Side side, int maxFrameSize, BodyCompression bodies) {
    this.side = Objects.requireNonNull(side, "side");
    this.maxFrameSize = checkMaxFrameSize(maxFrameSize);
    this.names = side == Side.SERVER ? new NameCache() : null;
    this.bodies = Objects.requireNonNull(bodies, "bodies");
    bodies.limitBodies(maxFrameSize);
  }

  /** Changes the largest accepted frame, typically once the handshake has agreed on limits. */
  public void setMaxFrameSize(int maxFrameSize) {
    this.maxFrameSize = checkMaxFrameSize(maxFrameSize);
    bodies.limitBodies(maxFrameSize);
  }

  public int maxFrameSize() {
    return maxFrameSize;
  }

  public Side side() {
    return side;
  }

  /**
   * The minor protocol version the peer's preface announced (what it may be sent: a 1.0 peer is
   * never sent a 1.1 frame), or -1 before the preface has arrived.
   */
  public int peerMinorVersion() {
    return peerMinorVersion;
  }

  /**
   * The highest request id, compared unsigned, of the REQUEST frames emitted so far (batched ones
   * included); 0 before the first. It is the {@code lastAcceptedId} of a GOAWAY sent now.
   */
  public int highestRequestId() {
    return highestRequestId;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    try {
      switch (state) {
        case AWAIT_PREFACE -> readPreface(ctx, in);
        case AWAIT_HANDSHAKE, FRAMES -> readFrames(ctx, in, out);
        case FAILED -> in.skipBytes(in.readableBytes());
      }
    } catch (ProtocolException e) {
      handleViolation(ctx, in, GoAwayReason.PROTOCOL_ERROR, e);
    }
  }

  private void readPreface(ChannelHandlerContext ctx, ByteBuf in) {
    int start = in.readerIndex();
    // Checked at 4 bytes so that a peer speaking another protocol is turned away at once.
    if (in.readableBytes() >= 4 && in.getInt(start) != ProtocolVersion.MAGIC) {
      throw new ProtocolException(
          "preface does not start with \"TETH\": 0x" + Integer.toHexString(in.getInt(start)));
    }
    if (in.readableBytes() < ProtocolVersion.PREFACE_LENGTH) {
      return;
    }
    int major = in.getUnsignedByte(start + 4);
    int minor = in.getUnsignedByte(start + 5);
    // In 1.0 the last two bytes are reserved and mean nothing; from 1.1 on they are capabilities.
    int capabilities = minor >= 1 ? in.getUnsignedShort(start + 6) : 0;
    in.skipBytes(ProtocolVersion.PREFACE_LENGTH);
    peerMinorVersion = minor;
    if (major != ProtocolVersion.MAJOR) {
      ProtocolException cause =
          new ProtocolException(
              "peer speaks protocol "
                  + major
                  + "."
                  + minor
                  + ", this side speaks "
                  + ProtocolVersion.MAJOR
                  + ".x");
      handleViolation(ctx, in, GoAwayReason.UNSUPPORTED_VERSION, cause);
      return;
    }
    bodies.onPeerCapabilities(capabilities);
    transitionTo(State.AWAIT_HANDSHAKE);
  }

  /**
   * Reads the next whole frame, and the ones after it for as long as each is a response handed to
   * the sink: such a frame emits nothing, so reading on spares the decoder's loop (its bookkeeping
   * and checks) a turn per response.
   */
  private void readFrames(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    boolean sunk;
    do {
      sunk = readFrame(in, out);
    } while (sunk && in.isReadable() && !ctx.isRemoved());
  }

  /**
   * Reads one frame if it is whole; true when it was a response the sink took (nothing emitted).
   */
  private boolean readFrame(ByteBuf in, List<Object> out) {
    int readable = in.readableBytes();
    if (readable < FrameHeader.LENGTH_FIELD_LENGTH) {
      return false;
    }
    int start = in.readerIndex();
    long length = in.getUnsignedInt(start);
    checkLength(length);
    if (readable <= TYPE_OFFSET) {
      return false;
    }
    // Judged before the body arrives: nothing is buffered for a frame that will be refused.
    FrameType type = checkAdmissible(in.getUnsignedByte(start + TYPE_OFFSET));
    if (readable < FrameHeader.LENGTH_FIELD_LENGTH + length) {
      return false;
    }
    in.skipBytes(FrameHeader.LENGTH_FIELD_LENGTH);
    // Narrow the cumulation to this frame instead of slicing it: no slice object per frame.
    int writerIndex = in.writerIndex();
    int frameEnd = in.readerIndex() + (int) length;
    Frame frame;
    in.writerIndex(frameEnd);
    try {
      if (type == FrameType.RESPONSE && responseSink != null && state == State.FRAMES) {
        FrameReader.decodeResponse(in, responseSink, bodies);
        return true;
      }
      frame = FrameReader.decode(in, names, bodies);
    } finally {
      in.writerIndex(writerIndex);
      in.readerIndex(Math.max(in.readerIndex(), frameEnd));
    }
    onFrameDecoded(type, frame);
    out.add(frame);
    return false;
  }

  /**
   * Hands RESPONSE frames after the handshake to {@code sink} as they are decoded, instead of
   * emitting Response objects down the pipeline.
   */
  public void setResponseSink(ResponseSink sink) {
    this.responseSink = sink;
  }

  private void checkLength(long length) {
    if (length < FrameHeader.HEADER_LENGTH) {
      throw new ProtocolException("frame length " + length + " is below the 6-byte header");
    }
    if (length > maxFrameSize) {
      throw new ProtocolException(
          "frame length " + length + " exceeds the maximum of " + maxFrameSize);
    }
  }

  private FrameType checkAdmissible(int typeCode) {
    FrameType type = FrameType.fromCode(typeCode);
    if (type == null) {
      throw new ProtocolException("unknown frame type " + typeCode);
    }
    if (state == State.AWAIT_HANDSHAKE) {
      if (!opensHandshake(type)) {
        throw new ProtocolException(type + " frame before handshake");
      }
    } else if (type == FrameType.HELLO || type == FrameType.WELCOME) {
      throw new ProtocolException(type + " frame after the handshake");
    } else if (!receivable(type)) {
      String receiver = side.name().toLowerCase(Locale.ROOT);
      throw new ProtocolException(type + " frame sent to a " + receiver);
    }
    return type;
  }

  private boolean opensHandshake(FrameType type) {
    return switch (side) {
      case SERVER -> type == FrameType.HELLO;
      // A server that refuses the client answers GOAWAY instead of WELCOME.
      case CLIENT -> type == FrameType.WELCOME || type == FrameType.GOAWAY;
    };
  }

  private boolean receivable(FrameType type) {
    return switch (type) {
      case REQUEST, BATCH -> side == Side.SERVER;
      case RESPONSE, TOPOLOGY -> side == Side.CLIENT;
      // Streams flow both ways (1.3); a server CANCELs what a bidirectional client sends.
      case PING, PONG, GOAWAY, CANCEL, STREAM_ITEM, STREAM_CREDIT, STREAM_END -> true;
      case HELLO, WELCOME -> false;
    };
  }

  private void onFrameDecoded(FrameType type, Frame frame) {
    if (state == State.AWAIT_HANDSHAKE) {
      transitionTo(State.FRAMES);
    }
    if (type == FrameType.REQUEST) {
      noteRequestId(frame.requestId());
    } else if (type == FrameType.BATCH) {
      for (Request request : ((Batch) frame).requests()) {
        noteRequestId(request.requestId());
      }
    }
  }

  private void noteRequestId(int requestId) {
    if (Integer.compareUnsigned(requestId, highestRequestId) > 0) {
      highestRequestId = requestId;
    }
  }

  /**
   * A violation that only the frame's reader could see (an item past its credit, a stream id still
   * in use): answered as one found while decoding, GOAWAY(PROTOCOL_ERROR) then close, and nothing
   * after it is read. Call on the channel's loop; a second violation changes nothing.
   */
  public void failAfterDecoding(Channel channel, ProtocolException cause) {
    ChannelHandlerContext ctx = channel.pipeline().context(this);
    if (state == State.FAILED || ctx == null) {
      channel.close();
      return;
    }
    handleViolation(ctx, Unpooled.EMPTY_BUFFER, GoAwayReason.PROTOCOL_ERROR, cause);
  }

  private void handleViolation(
      ChannelHandlerContext ctx, ByteBuf in, GoAwayReason reason, ProtocolException cause) {
    // A server that fails before the handshake has written nothing yet, and the client's decoder
    // expects a preface before any frame, GOAWAY included.
    boolean prefaceOwed = side == Side.SERVER && state != State.FRAMES;
    transitionTo(State.FAILED);
    in.skipBytes(in.readableBytes());
    GoAway goAway = new GoAway(reason, highestRequestId, cause.getMessage());
    ctx.writeAndFlush(encodeGoAway(ctx.alloc(), goAway, prefaceOwed))
        .addListener(ChannelFutureListener.CLOSE);
    ctx.fireUserEventTriggered(new ProtocolViolation(cause, reason));
  }

  private static ByteBuf encodeGoAway(ByteBufAllocator alloc, GoAway goAway, boolean prefaceOwed) {
    int prefaceLength = prefaceOwed ? ProtocolVersion.PREFACE_LENGTH : 0;
    ByteBuf out = alloc.ioBuffer(prefaceLength + FrameWriter.encodedSize(goAway));
    if (prefaceOwed) {
      FrameWriter.writePreface(out);
    }
    FrameWriter.encode(goAway, out);
    return out;
  }

  private void transitionTo(State next) {
    // FAILED is terminal: nothing may revive a connection that has been told GOAWAY.
    if (state != State.FAILED) {
      state = next;
    }
  }

  private static int checkMaxFrameSize(int maxFrameSize) {
    if (maxFrameSize < FrameHeader.HEADER_LENGTH) {
      throw new IllegalArgumentException("maxFrameSize must be at least 6: " + maxFrameSize);
    }
    return maxFrameSize;
  }
}
