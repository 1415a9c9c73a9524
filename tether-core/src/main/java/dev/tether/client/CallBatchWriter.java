package dev.tether.client;

import dev.tether.CallPhase;
import dev.tether.RequestTooLargeException;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.EncodedNames;
import dev.tether.protocol.FrameHeader;
import dev.tether.protocol.WriteBatcher;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import java.util.Arrays;

/**
 * Puts the calls queued on one connection on the wire: one write per event-loop turn, as many
 * twoway calls as the server's limit and the socket's high-water mark allow, the others held
 * unwritten in the {@link CallBacklog} until a slot frees. It learns which calls left whole: only a
 * call whose whole frame reached the kernel counts as sent, which is what the at-most-once rule
 * needs to know. Callers enqueue from any thread; everything else runs on the loop.
 */
final class CallBatchWriter extends WriteBatcher<CallAttempt> {
  private final ClientConnection connection;
  private final PendingCalls pending;
  private final CallBacklog backlog;
  private final ConnectionWatch watch;
  private final BodyCompression compression;

  /**
   * How many twoway calls the server takes at once (its WELCOME); plain, written once on the loop
   * at the handshake, read racily by {@link ExtraConnections} to find room.
   */
  private int inFlightLimit = Integer.MAX_VALUE;

  /** The calls encoded into the batch being built; the first apart, since most batches hold one. */
  private CallAttempt first;

  /**
   * The batch's other calls, in {@code more[0 .. moreCount)}; made by the first batch of more than
   * one call. A written batch hands it to its outcome, which hands it back once the write is done.
   */
  private CallAttempt[] more;

  private int moreCount;

  /**
   * A finished batch's outcome, for the next batch to reuse: a write mostly completes before the
   * next batch is written, so a busy connection makes no outcome or array per batch. Loop only.
   */
  private BatchOutcome spare;

  /** The wire form of the names this connection sends, reused from call to call. */
  private final EncodedNames names = new EncodedNames();

  CallBatchWriter(
      Channel channel,
      ClientConnection connection,
      PendingCalls pending,
      CallBacklog backlog,
      ConnectionWatch watch,
      BodyCompression compression) {
    super(channel);
    this.connection = connection;
    this.pending = pending;
    this.backlog = backlog;
    this.watch = watch;
    this.compression = compression;
  }

  /** The server's WELCOME said how many twoway calls it takes at once on this connection. */
  void limitInFlight(int maxConcurrentRequests) {
    inFlightLimit = maxConcurrentRequests;
  }

  /**
   * True while another twoway call fits: under the server's limit, and unsent bytes below the mark.
   */
  boolean hasFreeSlot() {
    return pending.size() < inFlightLimit && channel.isWritable();
  }

  /** A twoway call left the pending table (on the loop): a backlogged call takes its slot. */
  void onSlotFreed() {
    CallAttempt next = backlog.nextLive();
    if (next != null) {
      next.waitsIn(CallPhase.Kind.AWAITING_REPLY, CallAttempt.endpointOf(connection));
      enqueue(next);
    } else if (pending.isEmpty()) {
      watch.onNoCallInFlight();
    }
  }

  /**
   * Takes back a call that waits for its answer (on the loop): its slot goes to the next waiting
   * call, and when {@code tellServer} a CANCEL says no answer is wanted. False when it was not
   * waiting here (answered meanwhile, or never written).
   */
  boolean cancel(CallAttempt inv, boolean tellServer) {
    if (!pending.forget(inv)) {
      return false;
    }
    if (tellServer) {
      channel.writeAndFlush(new Cancel(inv.requestId), channel.voidPromise());
    }
    onSlotFreed();
    return true;
  }

  /**
   * Below the low-water mark again (on the loop): calls that waited for the unsent bytes to drain
   * go out.
   */
  void onWritable() {
    for (int n = backlog.size(); n > 0 && pending.size() < inFlightLimit; n--) {
      CallAttempt next = backlog.poll();
      next.waitsIn(CallPhase.Kind.AWAITING_REPLY, CallAttempt.endpointOf(connection));
      enqueue(next);
    }
    backlog.endSaturationIfEmpty();
  }

  /** Moves every backlogged call to {@code other} (on the loop); they were never sent here. */
  void handOverBacklog(Lane other) {
    for (CallAttempt inv = backlog.poll(); inv != null; inv = backlog.poll()) {
      other.enqueue(inv);
    }
    backlog.endSaturationIfEmpty();
  }

  @Override
  protected void encode(CallAttempt inv, ByteBuf out) {
    if (!connection.takesCalls()) {
      inv.onNotSent(connection.whyNotTakingCalls());
      return;
    }
    boolean twoway = !inv.isOneway();
    if (twoway && !hasFreeSlot()) {
      // Every slot is taken: the call waits, unsent, and the runtime hears once per saturation so
      // it can move the backlog to a sibling or open an extra connection.
      inv.waitsIn(CallPhase.Kind.WAITING_FOR_SLOT, CallAttempt.endpointOf(connection));
      if (backlog.add(inv)) {
        connection.host.onSaturated(connection);
      }
      return;
    }
    if (!inv.beginWriting()) {
      return; // timed out or cancelled while it waited in the queue: never written
    }
    inv.requestId = pending.nextRequestId();
    int start = out.writerIndex();
    inv.writeRequest(out, compression, names);
    // The limit bounds the length field, which counts all but itself.
    int frameBytes = out.writerIndex() - start - FrameHeader.LENGTH_FIELD_LENGTH;
    int limit = connection.serverMaxFrameSize();
    if (frameBytes > limit) {
      out.writerIndex(start); // never written: the connection and the other calls go on
      inv.fail(
          new RequestTooLargeException(
              inv.describe()
                  + " is a frame of "
                  + frameBytes
                  + " bytes, over the "
                  + limit
                  + " bytes "
                  + connection
                  + " accepts (its WELCOME); it was not sent"));
      return;
    }
    watch.onCallWritten(twoway, twoway && pending.isEmpty());
    if (twoway) {
      pending.add(inv);
    }
    inv.batchEndOffset = out.writerIndex();
    if (first == null) {
      first = inv;
    } else {
      if (more == null) {
        more = new CallAttempt[15];
      } else if (moreCount == more.length) {
        more = Arrays.copyOf(more, more.length * 2);
      }
      more[moreCount++] = inv;
    }
  }

  @Override
  protected void writeBatch(ByteBuf buffer) {
    if (first == null) {
      buffer.release();
      return;
    }
    watch.onWrite();
    if (moreCount == 0) {
      // One call: it is its own write listener, and whole-or-not needs no progress count.
      CallAttempt only = first;
      first = null;
      channel.write(buffer, channel.newPromise()).addListener(only);
      return;
    }
    BatchOutcome outcome = spare != null ? spare : new BatchOutcome(this);
    spare = null;
    more = outcome.take(first, more, moreCount);
    first = null;
    moreCount = 0;
    channel.write(buffer, channel.newProgressivePromise()).addListener(outcome);
  }

  @Override
  protected void discard(CallAttempt inv) {
    inv.onNotSent(connection.whyClosed());
  }

  /** A batch's outcome is done with its calls (on the loop): the next batch may reuse it. */
  private void recycle(BatchOutcome outcome) {
    if (spare == null) {
      spare = outcome;
    }
  }

  /**
   * Marks the calls of one written batch as sent. On a failed write, only the calls whose frame
   * ended within the bytes the kernel took count as sent; the rest never reached the server whole.
   * Reused from batch to batch once its write is done (see {@link #spare}); loop only.
   */
  private static final class BatchOutcome implements ChannelProgressiveFutureListener {
    private final CallBatchWriter writer;
    private CallAttempt first;

    /** The batch's other calls, in {@code more[0 .. moreCount)}: one or more. */
    private CallAttempt[] more;

    private int moreCount;
    private long bytesWritten;

    BatchOutcome(CallBatchWriter writer) {
      this.writer = writer;
    }

    /**
     * Holds a batch's calls; returns the array of calls it held before, emptied (null at first).
     */
    CallAttempt[] take(CallAttempt first, CallAttempt[] more, int moreCount) {
      CallAttempt[] previous = this.more;
      this.first = first;
      this.more = more;
      this.moreCount = moreCount;
      this.bytesWritten = 0;
      return previous;
    }

    @Override
    public void operationProgressed(ChannelProgressiveFuture future, long progress, long total) {
      bytesWritten = progress;
    }

    @Override
    public void operationComplete(ChannelProgressiveFuture future) {
      boolean all = future.isSuccess();
      markIfWritten(first, all);
      for (int i = 0; i < moreCount; i++) {
        markIfWritten(more[i], all);
      }
      // The arrays must not keep answered calls alive while they wait for the next batch.
      Arrays.fill(more, 0, moreCount, null);
      first = null;
      moreCount = 0;
      if (!all) {
        writer.connection.onWriteFailed(future.cause());
      }
      writer.recycle(this);
    }

    private void markIfWritten(CallAttempt inv, boolean all) {
      if (all || inv.batchEndOffset <= bytesWritten) {
        inv.onSent();
      }
    }
  }
}
