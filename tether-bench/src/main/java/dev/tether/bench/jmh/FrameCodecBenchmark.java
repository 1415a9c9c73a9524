package dev.tether.bench.jmh;

import dev.tether.protocol.EncodedNames;
import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameHeader;
import dev.tether.protocol.FrameReader;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH: the frame codec ({@link FrameWriter}, {@link FrameReader}) alone, for frames with a 64-byte
 * body, no metadata and no deadline, as an untyped call of service {@code bench}, operation {@code
 * echo} sends and receives them.
 *
 * <ul>
 *   <li>{@code encodeRequest}: the client's hot path, {@link FrameWriter#encodeRequest} into an I/O
 *       buffer taken from Netty's pooled allocator and released again, as the client's write batch
 *       is.
 *   <li>{@code decodeResponse}: the client's read path, {@link FrameReader#decode} of a RESPONSE
 *       into a {@link Response} (which copies the body into its own {@code byte[]}).
 *   <li>{@code decodeRequest}: the server's read path, the same for a REQUEST (two strings and the
 *       body).
 * </ul>
 *
 * <p>The decoded frame sits in one pooled buffer made at setup; each operation rewinds its reader
 * index, so only the decoder is measured (the connection's frame decoder adds a slice per frame).
 * The benchmark thread is a Netty {@code FastThreadLocalThread} ({@link EventLoopLikeExecutor}), as
 * Tether's event loops are, so that the pooled allocator recycles buffers as it does there. Run
 * with {@code java -cp tether-bench/target/tether-bench.jar org.openjdk.jmh.Main
 * FrameCodecBenchmark -prof gc}; {@code gc.alloc.rate.norm} is the bytes allocated per frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsPrepend = {
      "-Djmh.executor=CUSTOM",
      "-Djmh.executor.class=dev.tether.bench.jmh.EventLoopLikeExecutor"
    })
@Threads(1)
public class FrameCodecBenchmark {

  static final int BODY_BYTES = 64;
  private static final String SERVICE = "bench";
  private static final String OPERATION = "echo";

  /** Enough for either frame: header, names and body. */
  private static final int FRAME_CAPACITY = 128;

  /**
   * Netty 4.2's default (what a Tether connection's {@code channel.alloc()} is) or the older pooled
   * one.
   */
  @Param({"adaptive", "pooled"})
  public String allocator;

  private ByteBufAllocator alloc;

  /** The client connection's cache of the names' wire form. */
  private final EncodedNames names = new EncodedNames();

  private final byte[] body = new byte[BODY_BYTES];
  private int nextRequestId = 1;

  /** A RESPONSE's bytes after its length field; non-null between setup and tear-down. */
  private ByteBuf responseFrame;

  /** A REQUEST's bytes after its length field; non-null between setup and tear-down. */
  private ByteBuf requestFrame;

  /**
   * Written over by every call of {@link #encodeRequestIntoOneBuffer}; non-null between setup and
   * tear-down.
   */
  private ByteBuf reused;

  @Setup(Level.Trial)
  public void encodeFrames() {
    alloc =
        allocator.equals("adaptive")
            ? new AdaptiveByteBufAllocator()
            : PooledByteBufAllocator.DEFAULT;
    responseFrame = encodeWithoutLengthField(new Response(7, Status.OK, Map.of(), body));
    requestFrame =
        encodeWithoutLengthField(new Request(7, 0, SERVICE, OPERATION, 0, Map.of(), body));
    reused = alloc.ioBuffer(FRAME_CAPACITY);
  }

  private ByteBuf encodeWithoutLengthField(Frame frame) {
    ByteBuf buf = alloc.ioBuffer(FRAME_CAPACITY);
    FrameWriter.encode(frame, buf);
    buf.skipBytes(FrameHeader.LENGTH_FIELD_LENGTH);
    return buf.discardReadBytes();
  }

  @TearDown(Level.Trial)
  public void release() {
    responseFrame.release();
    requestFrame.release();
    reused.release();
  }

  /** Returns the frame's size so that the work cannot be optimised away. */
  @Benchmark
  public int encodeRequest() {
    ByteBuf out = alloc.ioBuffer(FRAME_CAPACITY);
    try {
      FrameWriter.encodeRequest(nextRequestId++, 0, SERVICE, OPERATION, 0, Map.of(), body, out);
      return out.readableBytes();
    } finally {
      out.release();
    }
  }

  /** As a client connection encodes: the names from its {@link EncodedNames}. */
  @Benchmark
  public int encodeRequestCachedNames() {
    ByteBuf out = alloc.ioBuffer(FRAME_CAPACITY);
    try {
      FrameWriter.encodeRequest(
          nextRequestId++, 0, SERVICE, OPERATION, 0, Map.of(), body, names, out);
      return out.readableBytes();
    } finally {
      out.release();
    }
  }

  /**
   * As {@link #encodeRequestCachedNames}, into one buffer written over each time: the encoding
   * alone, without the allocator's work per buffer.
   */
  @Benchmark
  public int encodeRequestIntoOneBuffer() {
    reused.clear();
    FrameWriter.encodeRequest(
        nextRequestId++, 0, SERVICE, OPERATION, 0, Map.of(), body, names, reused);
    return reused.readableBytes();
  }

  @Benchmark
  public Frame decodeResponse() {
    responseFrame.readerIndex(0);
    return FrameReader.decode(responseFrame);
  }

  @Benchmark
  public Frame decodeRequest() {
    requestFrame.readerIndex(0);
    return FrameReader.decode(requestFrame);
  }
}
