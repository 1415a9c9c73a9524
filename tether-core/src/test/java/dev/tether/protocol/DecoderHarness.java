package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A {@link FrameDecoder} in an {@link EmbeddedChannel} whose buffers all come from a {@link
 * TrackingAllocator}: feeds bytes as separate reads, collects emitted frames, the GOAWAY written
 * back and the {@link ProtocolViolation} events, and on close proves nothing leaked.
 */
final class DecoderHarness implements AutoCloseable {
  private static final byte[] HELLO = concat(preface(), encode(SampleFrames.hello()));
  private static final byte[] WELCOME = concat(preface(), encode(SampleFrames.welcome()));

  final TrackingAllocator allocator = new TrackingAllocator();
  final FrameDecoder decoder;
  final EmbeddedChannel channel = new EmbeddedChannel();
  private final List<ProtocolViolation> violations = new ArrayList<>();

  /** What the decoder wrote back: whether a preface came first, then the frames. */
  record Written(boolean preface, List<Frame> frames) {}

  DecoderHarness(FrameDecoder.Side side) {
    this(side, ProtocolVersion.DEFAULT_MAX_FRAME_SIZE);
  }

  DecoderHarness(FrameDecoder.Side side, int maxFrameSize) {
    this(side, maxFrameSize, BodyCompression.disabled());
  }

  DecoderHarness(FrameDecoder.Side side, int maxFrameSize, BodyCompression bodies) {
    decoder = new FrameDecoder(side, maxFrameSize, bodies);
    channel.config().setAllocator(allocator);
    channel.pipeline().addLast(decoder, new ViolationRecorder(violations));
  }

  static byte[] preface() {
    return preface(ProtocolVersion.MAJOR, ProtocolVersion.MINOR);
  }

  static byte[] preface(int major, int minor) {
    return new byte[] {'T', 'E', 'T', 'H', (byte) major, (byte) minor, 0, 0};
  }

  static byte[] encode(Frame... frames) {
    ByteBuf out = Unpooled.buffer();
    for (Frame frame : frames) {
      FrameWriter.encode(frame, out);
    }
    byte[] bytes = new byte[out.readableBytes()];
    out.readBytes(bytes);
    return bytes;
  }

  static byte[] concat(byte[] first, byte[] second) {
    byte[] both = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    return both;
  }

  /** Feeds the peer's preface and handshake frame and consumes the emitted handshake frame. */
  DecoderHarness handshake() {
    feed(decoder.side() == FrameDecoder.Side.SERVER ? HELLO : WELCOME);
    assertThat(frames()).hasSize(1);
    return this;
  }

  /** Feeds each chunk as one read, stopping once the decoder has closed the channel. */
  DecoderHarness feed(byte[]... chunks) {
    for (byte[] chunk : chunks) {
      if (!channel.isOpen()) {
        break;
      }
      channel.writeInbound(channel.alloc().heapBuffer(chunk.length).writeBytes(chunk));
    }
    channel.checkException();
    return this;
  }

  DecoderHarness feedByteByByte(byte[] bytes) {
    for (byte b : bytes) {
      feed(new byte[] {b});
    }
    return this;
  }

  /** Every frame emitted since the last call. */
  List<Frame> frames() {
    List<Frame> frames = new ArrayList<>();
    for (Object msg; (msg = channel.readInbound()) != null; ) {
      frames.add((Frame) msg);
    }
    return frames;
  }

  /** Everything written back since the last call, parsed and released. */
  Written written() {
    ByteBuf all = Unpooled.buffer();
    for (ByteBuf buf; (buf = channel.readOutbound()) != null; ) {
      all.writeBytes(buf);
      buf.release();
    }
    boolean preface = all.readableBytes() >= 8 && all.getInt(0) == ProtocolVersion.MAGIC;
    if (preface) {
      all.skipBytes(8);
    }
    List<Frame> frames = new ArrayList<>();
    while (all.isReadable()) {
      frames.add(FrameReader.decode(all.readSlice(all.readInt())));
    }
    return new Written(preface, frames);
  }

  /** The single GOAWAY written back since the last call. */
  GoAway goAway() {
    List<Frame> frames = written().frames();
    assertThat(frames).hasSize(1).first().isInstanceOf(GoAway.class);
    return (GoAway) frames.get(0);
  }

  List<ProtocolViolation> violations() {
    return violations;
  }

  boolean isOpen() {
    return channel.isOpen();
  }

  /** Closes the channel, surfacing any exception, and proves every buffer was released. */
  @Override
  public void close() {
    channel.finishAndReleaseAll();
    channel.checkException();
    assertThat(allocator.unreleased()).as("buffers still referenced").isZero();
  }

  private static final class ViolationRecorder extends ChannelInboundHandlerAdapter {
    private final List<ProtocolViolation> violations;

    ViolationRecorder(List<ProtocolViolation> violations) {
      this.violations = violations;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof ProtocolViolation violation) {
        violations.add(violation);
      }
      ctx.fireUserEventTriggered(evt);
    }
  }
}
