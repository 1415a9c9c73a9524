package dev.tether.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One direction of a {@link Link}: the bytes its source socket reads, on their way out of its sink
 * socket. Each chunk read waits in a queue until it is due (at once, or after the proxy's latency)
 * and the proxy is not frozen; chunks leave in the order they came. The end of the source socket
 * queues behind its last bytes, so a slow link delays the end too and a frozen one holds it.
 *
 * <p>A cut, when armed, lets a budget of bytes through and resets the link on the first byte past
 * it; that byte and everything after it are dropped.
 *
 * <p>Confined to the proxy's event loop, like everything it touches.
 */
final class Flow {
  /** Reading from the source pauses while this many bytes wait here, and resumes once below. */
  static final int MAX_HELD_BYTES = 1 << 20;

  /** The value of {@link #cutBudgetBytes} while no cut is armed. */
  private static final long NO_CUT = -1;

  /** What waits to be forwarded: bytes, or the end of the source socket. */
  private sealed interface Chunk permits Bytes, End {
    long dueNanos();
  }

  /** Bytes read from the source; owned (and released) by whoever holds the chunk. */
  private record Bytes(ByteBuf data, long dueNanos) implements Chunk {}

  /** The source socket closed; {@code reset} when it broke (RST or I/O error) rather than ended. */
  private record End(boolean reset, long dueNanos) implements Chunk {}

  private final FaultProxy proxy;
  private final Link link;
  private final Direction direction;
  private final Runnable drainTask = this::drain;
  private final ArrayDeque<Chunk> held = new ArrayDeque<>();
  private long heldBytes;

  /** Bytes still allowed through before the link is reset; {@link #NO_CUT} while none is armed. */
  private long cutBudgetBytes = NO_CUT;

  /** Non-null only while a drain is scheduled for the due time of the first held chunk. */
  private ScheduledFuture<?> drainTimer;

  Flow(FaultProxy proxy, Link link, Direction direction) {
    this.proxy = proxy;
    this.link = link;
    this.direction = direction;
  }

  /** Takes ownership of {@code data}, read from the source, and forwards it when it is due. */
  void handleRead(ByteBuf data) {
    heldBytes += data.readableBytes();
    held.add(new Bytes(data, dueNanos()));
    drain();
  }

  /** The source socket closed; the sink is closed after everything read before. */
  void handleEnd(boolean reset) {
    held.add(new End(reset, dueNanos()));
    drain();
  }

  /** Whether the source may be read: the queue is not full. */
  boolean hasRoom() {
    return heldBytes < MAX_HELD_BYTES;
  }

  /** Lets {@code budgetBytes} more bytes through, then resets the link on the next one. */
  void armCut(long budgetBytes) {
    cutBudgetBytes = budgetBytes;
  }

  void disarmCut() {
    cutBudgetBytes = NO_CUT;
  }

  /**
   * Forwards every chunk that is due, in order, unless the proxy is frozen or the link is closed;
   * schedules itself for the next chunk still waiting.
   */
  void drain() {
    cancelDrainTimer();
    Channel sink = link.sink(direction);
    boolean wrote = false;
    while (link.isOpen() && !proxy.isFrozen() && !held.isEmpty()) {
      long waitNanos = held.peek().dueNanos() - proxy.nowNanos();
      if (waitNanos > 0) {
        drainTimer = sink.eventLoop().schedule(drainTask, waitNanos, TimeUnit.NANOSECONDS);
        break;
      }
      Chunk next = held.poll();
      if (next instanceof Bytes bytes) {
        wrote |= forward(bytes.data(), sink);
      } else {
        link.handleSourceEnded(((End) next).reset());
      }
    }
    if (wrote) {
      sink.flush();
    }
    link.updateReading();
  }

  /** Drops everything held; the link is closed. */
  void release() {
    cancelDrainTimer();
    for (Chunk chunk = held.poll(); chunk != null; chunk = held.poll()) {
      if (chunk instanceof Bytes bytes) {
        bytes.data().release();
      }
    }
    heldBytes = 0;
  }

  /** Writes {@code data} to the sink without flushing; returns false when a cut took it instead. */
  private boolean forward(ByteBuf data, Channel sink) {
    int size = data.readableBytes();
    heldBytes -= size;
    if (cutBudgetBytes != NO_CUT && size > cutBudgetBytes) {
      cut(data, sink);
      return false;
    }
    if (cutBudgetBytes != NO_CUT) {
      cutBudgetBytes -= size;
    }
    proxy.countForwarded(direction, size);
    sink.write(data, sink.voidPromise());
    return true;
  }

  /** Forwards what is left of the budget and resets the link once those bytes are written. */
  private void cut(ByteBuf data, Channel sink) {
    int lastBytes = (int) cutBudgetBytes;
    ByteBuf allowed = data.readRetainedSlice(lastBytes);
    data.release();
    cutBudgetBytes = 0;
    proxy.countForwarded(direction, lastBytes);
    link.resetAfter(sink.writeAndFlush(allowed));
  }

  private long dueNanos() {
    return proxy.nowNanos() + proxy.latencyNanos();
  }

  private void cancelDrainTimer() {
    if (drainTimer != null) {
      drainTimer.cancel(false);
      drainTimer = null;
    }
  }
}
