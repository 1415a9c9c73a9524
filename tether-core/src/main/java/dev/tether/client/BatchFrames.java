package dev.tether.client;

import dev.tether.BatchLostException;
import dev.tether.RequestTooLargeException;
import dev.tether.protocol.Batch;
import dev.tether.protocol.FrameHeader;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Request;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * Writes one flush of a proxy's batch calls on a stream connection: as few BATCH frames as fit the
 * server's maximum frame size, in queue order. A call too large for any frame is left out and
 * reported; the flush's future fails with {@link BatchLostException} naming how many calls were not
 * sent, once every frame's write has finished. Runs on the connection's event loop.
 */
final class BatchFrames {
  /** The most bytes a BATCH's count can take (a varint of an int). */
  private static final int MAX_COUNT_BYTES = 5;

  private final RequestChannel connection;
  private final int total;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private int unfinishedFrames;
  private int lost;

  /** The first reason a call was not sent; null while none was lost. */
  private Throwable firstCause;

  private BatchFrames(RequestChannel connection, int total) {
    this.connection = connection;
    this.total = total;
  }

  /**
   * Sends a proxy's flush on {@code connection}: hops onto its loop and writes the frames there, in
   * frames no larger than its server's WELCOME allows; fails whole when the connection is not
   * ACTIVE by then.
   */
  static CompletableFuture<Void> send(
      BatchCarrier connection, Channel channel, List<? extends CallAttempt> calls) {
    BatchFrames flush = new BatchFrames(connection, calls.size());
    try {
      channel
          .eventLoop()
          .execute(
              () -> {
                Throwable inactive = connection.whyNotActive();
                if (inactive != null) {
                  flush.done.completeExceptionally(
                      lost(calls.size(), calls.size(), connection, inactive));
                  return;
                }
                connection.onBatchWriting();
                flush.write(channel, calls, connection.serverMaxFrameSize());
              });
    } catch (RejectedExecutionException loopStopped) {
      flush.done.completeExceptionally(lost(calls.size(), calls.size(), connection, loopStopped));
    }
    return flush.done;
  }

  /**
   * Splits and writes {@code calls} (on the loop); {@code maxFrameSize} bounds each frame's length
   * field.
   */
  private void write(Channel channel, List<? extends CallAttempt> calls, int maxFrameSize) {
    List<List<Request>> frames = split(calls, maxFrameSize);
    unfinishedFrames = frames.size();
    for (List<Request> frame : frames) {
      int size = frame.size();
      channel
          .write(new Batch(frame))
          .addListener(f -> frameWritten(size, f.isSuccess() ? null : f.cause()));
    }
    channel.flush();
    finishIfDone();
  }

  private List<List<Request>> split(List<? extends CallAttempt> calls, int maxFrameSize) {
    long room = (long) maxFrameSize - FrameHeader.HEADER_LENGTH - MAX_COUNT_BYTES;
    List<List<Request>> frames = new ArrayList<>();
    List<Request> current = new ArrayList<>();
    long used = 0;
    for (CallAttempt inv : calls) {
      Request r = inv.toRequest();
      int entry = FrameWriter.encodedSize(r);
      if (entry > room) {
        lose(
            1,
            new RequestTooLargeException(
                inv.describe()
                    + " needs "
                    + entry
                    + " bytes in a batch, over the "
                    + maxFrameSize
                    + " bytes "
                    + connection
                    + " accepts (its WELCOME)"));
        continue;
      }
      if (used + entry > room) {
        frames.add(current);
        current = new ArrayList<>();
        used = 0;
      }
      current.add(r);
      used += entry;
    }
    if (!current.isEmpty()) {
      frames.add(current);
    }
    return frames;
  }

  private void frameWritten(int calls, Throwable failure) {
    if (failure != null) {
      lose(calls, failure);
    }
    unfinishedFrames--;
    finishIfDone();
  }

  private void lose(int calls, Throwable cause) {
    lost += calls;
    if (firstCause == null) {
      firstCause = cause;
    }
  }

  private void finishIfDone() {
    if (unfinishedFrames > 0 || done.isDone()) {
      return;
    }
    if (lost == 0) {
      done.complete(null);
    } else {
      done.completeExceptionally(lost(lost, total, connection, firstCause));
    }
  }

  /**
   * The failure of a flush that could not send {@code lost} of its {@code total} calls to {@code
   * where} (a connection, or the proxy's identity when no connection was found).
   */
  static BatchLostException lost(int lost, int total, Object where, Throwable cause) {
    String why =
        cause == null
            ? ""
            : ": " + (cause.getMessage() != null ? cause.getMessage() : cause.toString());
    return new BatchLostException(
        lost,
        lost
            + " of "
            + total
            + " queued batch request(s) were not sent to "
            + where
            + " and are lost"
            + why,
        cause);
  }
}
