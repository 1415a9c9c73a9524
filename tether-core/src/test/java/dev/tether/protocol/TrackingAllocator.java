package dev.tether.protocol;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * An unpooled heap allocator that remembers every buffer it hands out, so a test can prove that all
 * of them were released and that none was sized by a peer's claims rather than by bytes received.
 * Direct buffers are asked for as well and served from the heap.
 */
final class TrackingAllocator extends AbstractByteBufAllocator {
  private final List<ByteBuf> allocated = new ArrayList<>();
  private int largestRequest;

  TrackingAllocator() {
    super(false);
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return track(new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity), initialCapacity);
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return newHeapBuffer(initialCapacity, maxCapacity);
  }

  /** The largest initial capacity asked for so far. */
  int largestRequest() {
    return largestRequest;
  }

  /** How many of the buffers handed out still hold a reference. */
  long unreleased() {
    return allocated.stream().filter(buf -> buf.refCnt() > 0).count();
  }

  /** Forgets released buffers, so long runs do not keep them all reachable. */
  void forgetReleased() {
    allocated.removeIf(buf -> buf.refCnt() == 0);
  }

  private ByteBuf track(ByteBuf buf, int initialCapacity) {
    allocated.add(buf);
    largestRequest = Math.max(largestRequest, initialCapacity);
    return buf;
  }
}
