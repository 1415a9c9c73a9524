package dev.tether.stream;

import dev.tether.observe.TetherEvent;
import java.util.concurrent.atomic.LongAdder;

/**
 * The items all streams of one client runtime or server sent and delivered, open ones included, for
 * status snapshots and meters that must move while a long stream runs. Each stream adds its
 * progress through its {@link Share} after each run of its context, so the counts cost one add per
 * batch of items, not one per item. Thread-safe.
 */
public final class StreamItemCounts {
  private final LongAdder sent = new LongAdder();
  private final LongAdder received = new LongAdder();

  /** A new stream's part of these counts; used in that stream's context only. */
  public Share share() {
    return new Share();
  }

  /** Items sent and delivered to subscribers so far, by every stream. */
  public TetherEvent.StreamItems totals() {
    return new TetherEvent.StreamItems(sent.sum(), received.sum());
  }

  /** One stream's progress, added to the totals as it grows. */
  public final class Share {
    private long sentSoFar;
    private long receivedSoFar;

    private Share() {}

    /** The stream has sent {@code sentNow} items and delivered {@code receivedNow} in all. */
    public void update(long sentNow, long receivedNow) {
      if (sentNow > sentSoFar) {
        sent.add(sentNow - sentSoFar);
        sentSoFar = sentNow;
      }
      if (receivedNow > receivedSoFar) {
        received.add(receivedNow - receivedSoFar);
        receivedSoFar = receivedNow;
      }
    }
  }
}
