package dev.tether.stream;

import dev.tether.protocol.Status;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import java.util.ArrayDeque;
import java.util.concurrent.Flow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving half of one stream direction: items from the wire reach the local subscriber in
 * position order, each once (a replayed item it already has is dropped), only as it asks; it holds
 * at most what the subscriber asked for and sends the peer credit for that much, never more than
 * the settings' window beyond what was delivered: {@code window} items, or more small ones while
 * they fit in {@code windowBytes} at the largest item's size so far (so 64-byte items do not wait
 * on a credit round trip every 32). Everything runs in the stream's context.
 */
public final class StreamReceiver implements Flow.Subscription {
  /** What the receiver tells the stream that owns it; called in the context. */
  public interface Owner {
    /** The subscriber cancelled: the peer is to stop sending. */
    void receiverCancelled();

    /** The subscriber got its last signal. */
    void receiverDone();

    /**
     * The failure a non-OK end means, built when it is delivered ({@code delivered} items before
     * it).
     */
    Throwable failureOf(StreamEnd end, long delivered);
  }

  private static final Logger log = LoggerFactory.getLogger(StreamReceiver.class);

  private final StreamContext context;
  private final StreamSettings settings;
  private final Owner owner;

  /** Items credited beyond what was delivered: the settings' window at the largest item so far. */
  private int window;

  private int largestItem = -1;
  private final ArrayDeque<byte[]> buffered = new ArrayDeque<>();
  private Flow.Subscriber<? super byte[]> subscriber;

  /** Null while detached: credit waits for the next link. */
  private StreamLink link;

  private long demand;
  private long delivered;
  private long received;

  /**
   * The highest limit the peer was told; it only grows. Written in the context before the credit
   * leaves, so the connection's loop may read it to refuse an item past it: the peer cannot have
   * heard of a higher limit.
   */
  private volatile long sentLimit;

  private long duplicates;

  /** How the direction ended, delivered once the buffer is empty; null while it goes on. */
  private StreamEnd end;

  /** A local failure (the stream was lost) delivered at once; null unless lost. */
  private Throwable lost;

  /** The subscriber got its last signal or cancelled: nothing more reaches it. */
  private boolean done;

  public StreamReceiver(StreamContext context, StreamSettings settings, Owner owner) {
    this.context = context;
    this.settings = settings;
    this.window = settings.window();
    this.owner = owner;
  }

  /** Gives the subscriber its subscription (in the context, first of all its signals). */
  public void start(Flow.Subscriber<? super byte[]> s) {
    subscriber = s;
    s.onSubscribe(this);
  }

  @Override
  public void request(long n) {
    context.execute(() -> onRequest(n));
  }

  @Override
  public void cancel() {
    context.execute(
        () -> {
          if (!done) {
            done = true;
            buffered.clear();
            owner.receiverCancelled();
          }
        });
  }

  private void onRequest(long n) {
    if (done) {
      return;
    }
    if (n <= 0) { // Reactive Streams rule 3.9
      done = true;
      buffered.clear();
      owner.receiverCancelled();
      subscriber.onError(
          new IllegalArgumentException("request(" + n + "): demand must be positive"));
      return;
    }
    demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
    drain();
  }

  /** The stream is on {@code next} from now on; the peer knows the limit sent so far. */
  public void attach(StreamLink next) {
    link = next;
    sendCredit();
  }

  public void detach() {
    link = null;
  }

  /** An item from the wire; one already received (a replay after a resume) is dropped. */
  public void onItem(long position, byte[] body) {
    if (position <= received) {
      duplicates++;
      return;
    }
    received = position;
    if (body.length > largestItem) {
      largestItem = body.length;
      window = settings.windowFor(largestItem);
    }
    if (!done) {
      buffered.add(body);
      drain();
    }
  }

  /**
   * The peer ended this direction; the end is delivered once the items before it are, except a
   * STREAM_LOST, which is delivered at once, what is buffered dropped ({@code delivered} counts it
   * out).
   */
  public void onEnd(StreamEnd ended) {
    if (end != null) {
      return;
    }
    end = ended;
    if (link != null) { // the last acknowledgement: the sender may forget everything
      link.write(new StreamCredit(link.streamId(), received, Math.max(sentLimit, received)));
    }
    if (ended.status() == Status.STREAM_LOST) {
      // The peer cannot go on: a subscriber that asks for nothing more must hear it all the same.
      fail(owner.failureOf(ended, delivered));
      return;
    }
    drain();
  }

  /**
   * The stream cannot go on: {@code failure} reaches the subscriber now; what is buffered is
   * dropped.
   */
  public void fail(Throwable failure) {
    if (done) {
      return;
    }
    lost = failure;
    buffered.clear();
    drain();
  }

  private void drain() {
    while (!done && demand > 0 && !buffered.isEmpty()) {
      delivered++;
      demand--;
      try {
        subscriber.onNext(buffered.poll());
      } catch (Throwable t) {
        subscriberFailed(t);
        return;
      }
    }
    if (done || !buffered.isEmpty() || (end == null && lost == null)) {
      sendCredit();
      return;
    }
    done = true;
    owner.receiverDone();
    if (subscriber == null) {
      return; // nobody subscribed to this direction: nobody to tell
    }
    if (lost != null) {
      subscriber.onError(lost);
    } else if (end.status() == Status.OK) {
      subscriber.onComplete();
    } else {
      subscriber.onError(owner.failureOf(end, delivered));
    }
  }

  /**
   * The subscriber threw from onNext: it is taken as cancelled (Reactive Streams rule 2.13), so the
   * peer stops sending, and hears nothing more; the exception is logged once, here.
   */
  private void subscriberFailed(Throwable t) {
    log.warn("a stream subscriber threw from onNext; its stream is cancelled", t);
    done = true;
    buffered.clear();
    owner.receiverCancelled();
  }

  /**
   * Credit for what the subscriber asked, up to a window beyond what was delivered; sent when it
   * grew by half a window, or when the peer has used all it had, so one item at a time still flows.
   */
  private void sendCredit() {
    if (link == null || end != null || done) {
      return;
    }
    long limit = delivered + Math.min(demand, window);
    if (limit > sentLimit
        && (limit - sentLimit >= Math.max(1, window / 2) || sentLimit <= received)) {
      sentLimit = limit;
      link.write(new StreamCredit(link.streamId(), received, limit));
    }
  }

  /**
   * Why {@code item} breaks the protocol, or null: it is past the credit this side gave. From any
   * thread (the connection's loop asks before the item is kept anywhere).
   */
  public String refusal(StreamItem item) {
    long limit = sentLimit;
    if (item.position() <= limit) {
      return null;
    }
    return "item "
        + item.position()
        + " on stream "
        + Integer.toUnsignedString(item.requestId())
        + " is past the credit given, "
        + limit;
  }

  /** The highest position received: what a RESUME tells the peer it has. */
  public long received() {
    return received;
  }

  /** The limit the peer was last told; from any thread. */
  public long sentLimit() {
    return sentLimit;
  }

  public long delivered() {
    return delivered;
  }

  /** Items that arrived twice (replays of items already received) and were dropped. */
  public long duplicates() {
    return duplicates;
  }

  /** True once the subscriber got its last signal or cancelled. */
  public boolean isDone() {
    return done;
  }

  /** True once the peer ended this direction. */
  public boolean hasEnded() {
    return end != null;
  }

  /** How the peer ended this direction; null while it goes on. */
  public Status endStatus() {
    return end == null ? null : end.status();
  }
}
