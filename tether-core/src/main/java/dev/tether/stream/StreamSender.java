package dev.tether.stream;

import dev.tether.RequestTooLargeException;
import dev.tether.protocol.FrameHeader;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.Flow;

/**
 * The sending half of one stream direction: it subscribes to the local publisher, asks it for no
 * more than the peer's credit, numbers each item and writes it, and keeps what the peer has not
 * acknowledged (up to the resume buffer's bytes) to replay after a resume. Whatever the credit, it
 * asks for at most {@link #ASK_AHEAD} items at a time, and only while its connection is writable
 * (detached, while the resume buffer still holds what it sent): a peer that grants much and reads
 * nothing makes it hold a bounded number of items. Every signal hops into the stream's context, so
 * a publisher may call from any thread.
 */
public final class StreamSender implements Flow.Subscriber<byte[]> {
  /** What the sender tells the stream that owns it; called in the context. */
  public interface Owner {
    /** The publisher completed or failed, and the end was sent or is kept for the next link. */
    void senderEnded();

    /**
     * The direction failed on this side before the peer could have it (the publisher broke a rule,
     * or made an item too large to send): the peer hears the end; the owner decides what else
     * fails. Called right after {@link #senderEnded()}.
     */
    default void senderRefused(Throwable why) {}
  }

  /** An item frame's bytes beyond its body, at most: type, flags, id and a 64-bit varint. */
  private static final long MAX_ITEM_OVERHEAD = 16;

  /** Items asked of the publisher and not yet produced, at most. */
  static final int ASK_AHEAD = 32;

  private final StreamContext context;
  private final long maxBufferBytes;
  private final Owner owner;

  /** Items from position acked+1 to produced, unless overflowed. */
  private final ArrayDeque<byte[]> unacked = new ArrayDeque<>();

  private long unackedBytes;

  /**
   * The buffer outgrew its bytes and was dropped: a resume is impossible until all is acknowledged.
   */
  private boolean overflowed;

  private Flow.Subscription subscription;
  private StreamLink link;
  private long requested;
  private long produced;
  private long acked;
  private long limit;
  private StreamEnd end;
  private boolean cancelled;

  /** The largest frame the peer accepts, as the last link said. */
  private int peerMaxFrameSize = Integer.MAX_VALUE;

  /** A wake-up waits for the link to be writable again. */
  private boolean awaitingWritable;

  public StreamSender(StreamContext context, long maxBufferBytes, Owner owner) {
    this.context = context;
    this.maxBufferBytes = maxBufferBytes;
    this.owner = owner;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    context.execute(
        () -> {
          if (subscription != null || cancelled) { // rule 2.5: one subscription at a time
            s.cancel();
            return;
          }
          subscription = s;
          pull();
        });
  }

  @Override
  public void onNext(byte[] item) {
    context.execute(
        () -> {
          if (cancelled || end != null) {
            return;
          }
          if (produced == requested) {
            refuseUnaskedItem();
            return;
          }
          if (tooLarge(item)) {
            return;
          }
          produced++;
          keep(item);
          if (link != null) {
            link.write(new StreamItem(link.streamId(), produced, item));
          }
          pull();
        });
  }

  @Override
  public void onError(Throwable failure) {
    String message = failure.getMessage();
    context.execute(
        () ->
            ended(
                Status.REMOTE_ERROR,
                Map.of(
                    Response.ERROR_TYPE,
                    failure.getClass().getName(),
                    Response.ERROR_MESSAGE,
                    message == null ? "" : message)));
  }

  @Override
  public void onComplete() {
    context.execute(() -> ended(Status.OK, Map.of()));
  }

  /**
   * The publisher broke rule 1.1 (an item beyond what it was asked for, so beyond the peer's
   * credit): it is cancelled, and the peer hears a failure instead of the item.
   */
  private void refuseUnaskedItem() {
    if (subscription != null) {
      subscription.cancel();
    }
    refused(
        new IllegalStateException(
            "the publisher sent more than the " + requested + " items it was asked for"));
  }

  /**
   * True when {@code item} makes a frame larger than the peer accepts: it is neither written nor
   * kept, the publisher is cancelled and the peer hears why, both sizes named; the connection and
   * its other streams go on.
   */
  private boolean tooLarge(byte[] item) {
    String why = oversize(produced + 1, item, peerMaxFrameSize);
    if (why == null) {
      return false;
    }
    if (subscription != null) {
      subscription.cancel();
    }
    refused(new RequestTooLargeException(why + "; it was not sent"));
    return true;
  }

  /**
   * Why item {@code position} makes a frame larger than {@code maxFrameSize}, both sizes named, or
   * null when it fits.
   */
  private static String oversize(long position, byte[] item, int maxFrameSize) {
    if (item.length + MAX_ITEM_OVERHEAD <= maxFrameSize) {
      return null; // the common case, without sizing a frame
    }
    // The limit bounds the length field, which counts all but itself.
    int frame =
        FrameWriter.encodedSize(new StreamItem(0, position, item))
            - FrameHeader.LENGTH_FIELD_LENGTH;
    if (frame <= maxFrameSize) {
      return null;
    }
    return "stream item "
        + position
        + " of "
        + item.length
        + " bytes is a frame of "
        + frame
        + " bytes, over the "
        + maxFrameSize
        + " bytes the peer accepts";
  }

  /** The direction fails here for {@code why}: the peer hears it as the end, the owner too. */
  private void refused(Throwable why) {
    if (end != null || cancelled) {
      return;
    }
    ended(
        Status.REMOTE_ERROR,
        Map.of(
            Response.ERROR_TYPE,
            why.getClass().getName(),
            Response.ERROR_MESSAGE,
            why.getMessage()));
    owner.senderRefused(why);
  }

  /** Ends this direction without the publisher (it failed to open, or the stream is lost). */
  public void endWith(Status status, Map<String, String> metadata) {
    ended(status, metadata);
  }

  private void ended(Status status, Map<String, String> metadata) {
    if (end != null || cancelled) {
      return;
    }
    end = new StreamEnd(0, status, produced, metadata);
    if (link != null) {
      link.write(new StreamEnd(link.streamId(), status, produced, metadata));
    }
    owner.senderEnded();
  }

  /**
   * The peer's credit: it holds every item up to {@code received} and takes items up to {@code
   * newLimit}.
   */
  public void onCredit(long received, long newLimit) {
    acknowledge(received);
    if (newLimit > limit) {
      limit = newLimit;
      pull();
    }
  }

  private void acknowledge(long received) {
    long upTo = Math.min(received, produced);
    while (acked < upTo) {
      acked++;
      byte[] gone = unacked.poll();
      if (gone != null) {
        unackedBytes -= gone.length;
      }
    }
    if (overflowed && acked == produced) {
      overflowed = false;
    }
  }

  private void keep(byte[] item) {
    if (overflowed) {
      return;
    }
    unacked.add(item);
    unackedBytes += item.length;
    if (unackedBytes > maxBufferBytes) {
      unacked.clear();
      unackedBytes = 0;
      overflowed = true;
    }
  }

  /**
   * Asks the publisher for more when little of what it was asked is still to come, within the
   * credit, while the link takes writes; an unwritable link wakes the sender when it drains.
   */
  private void pull() {
    if (subscription == null || end != null || cancelled || awaitingWritable) {
      return;
    }
    long outstanding = requested - produced;
    long n = Math.min(limit - requested, ASK_AHEAD - outstanding);
    if (n <= 0 || outstanding > ASK_AHEAD / 2) {
      return;
    }
    if (link == null ? overflowed : !link.isWritable()) {
      if (link != null) {
        awaitingWritable = true;
        StreamLink waitingOn = link;
        waitingOn.whenWritable(() -> context.execute(() -> writable(waitingOn)));
      }
      return; // detached: what it would produce now could not be resumed, so it waits
    }
    requested += n;
    subscription.request(n);
  }

  private void writable(StreamLink drained) {
    if (drained == link || link == null) {
      awaitingWritable = false;
    }
    pull();
  }

  /**
   * True when a peer that holds {@code peerReceived} items can be given the rest from this buffer.
   */
  public boolean canResumeFrom(long peerReceived) {
    return !overflowed && peerReceived >= acked && peerReceived <= produced;
  }

  /**
   * Why a peer that holds {@code peerReceived} items and accepts frames of at most {@code
   * peerMaxFrameSize} bytes (those of the connection it resumes on) cannot be given the rest from
   * this buffer; null when it can. Nothing is replayed that the peer would refuse.
   */
  public String resumeRefusal(long peerReceived, int peerMaxFrameSize) {
    if (!canResumeFrom(peerReceived)) {
      return "the items to replay outgrew the resume buffer";
    }
    long position = acked;
    for (byte[] item : unacked) {
      position++;
      String why = position > peerReceived ? oversize(position, item, peerMaxFrameSize) : null;
      if (why != null) {
        return why + " on the connection it resumes on; it cannot be replayed";
      }
    }
    return null;
  }

  /**
   * The stream is on {@code next}: what the peer lacks is replayed, then the end if there was one.
   */
  public void attach(StreamLink next, long peerReceived, long peerLimit) {
    acknowledge(peerReceived);
    link = next;
    peerMaxFrameSize = next.peerMaxFrameSize();
    awaitingWritable = false;
    long position = acked;
    for (byte[] item : unacked) {
      next.write(new StreamItem(next.streamId(), ++position, item));
    }
    if (end != null) {
      next.write(new StreamEnd(next.streamId(), end.status(), end.finalPosition(), end.metadata()));
    }
    onCredit(peerReceived, peerLimit);
  }

  public void detach() {
    link = null;
  }

  /** The peer wants nothing more: the publisher's subscription is cancelled. */
  public void cancel() {
    if (cancelled) {
      return;
    }
    cancelled = true;
    unacked.clear();
    unackedBytes = 0;
    if (subscription != null) {
      subscription.cancel();
    }
  }

  /** True once the direction ended and the peer acknowledged every item. */
  public boolean isFinished() {
    return end != null && acked == produced;
  }

  public boolean hasEnded() {
    return end != null;
  }

  /** The peer acknowledged every item sent; the stream may end once it is told. */
  public long produced() {
    return produced;
  }

  /** How many items the publisher was asked for so far. */
  public long requested() {
    return requested;
  }
}
