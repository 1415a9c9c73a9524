package dev.tether.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.protocol.Status;
import dev.tether.protocol.StreamEnd;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/** The receiver's credit, in isolation: the link records what it would send, tasks run at once. */
class StreamReceiverTest {
  private final RecordingLink link = new RecordingLink(1);
  private final List<byte[]> got = new ArrayList<>();

  @Test
  void smallItemsAreCreditedBeyondTheItemWindowWhileTheyFitInTheWindowBytes() {
    StreamReceiver receiver = receiverAskingFor(Long.MAX_VALUE, StreamSettings.DEFAULTS);
    assertThat(link.lastLimit()).as("before any item, the item window").isEqualTo(64);

    feed(receiver, 64, 64);

    assertThat(link.largestAllowanceSince(0))
        .isEqualTo(
            StreamSettings.DEFAULTS.windowBytes() / (64 + StreamSettings.ITEM_OVERHEAD_BYTES));
    assertThat(got).hasSize(64);
  }

  @Test
  void largeItemsAreCreditedNoFurtherThanTheItemWindow() {
    StreamReceiver receiver = receiverAskingFor(Long.MAX_VALUE, StreamSettings.DEFAULTS);

    feed(receiver, 200, 16 << 10);

    assertThat(link.largestAllowanceSince(0)).isEqualTo(64);
  }

  @Test
  void aLargerItemShrinksTheCreditGivenFromThenOn() {
    StreamSettings small = new StreamSettings(8, 4096, 1 << 20, Duration.ofSeconds(30));
    StreamReceiver receiver = receiverAskingFor(Long.MAX_VALUE, small);
    feed(receiver, 64, 0);
    assertThat(link.largestAllowanceSince(0)).isEqualTo(4096 / StreamSettings.ITEM_OVERHEAD_BYTES);
    int creditsBefore = link.credits().size();

    feed(receiver, 300, 4096);

    assertThat(link.credits().size()).as("credit went on").isGreaterThan(creditsBefore);
    assertThat(link.largestAllowanceSince(creditsBefore)).isEqualTo(8);
  }

  @Test
  void neverCreditsMoreThanTheSubscriberAskedFor() {
    StreamReceiver receiver = receiverAskingFor(10, StreamSettings.DEFAULTS);

    feed(receiver, 10, 8);

    assertThat(link.lastLimit()).isEqualTo(10);
    assertThat(got).hasSize(10);
  }

  @Test
  void aSmallResumeBufferKeepsTheCreditWithinAQuarterOfIt() {
    StreamSettings tight = new StreamSettings(64, 64 << 10, 16 << 10, Duration.ofSeconds(30));
    StreamReceiver receiver = receiverAskingFor(Long.MAX_VALUE, tight);

    feed(receiver, 64, 0);

    assertThat(link.largestAllowanceSince(0))
        .isEqualTo((16 << 10) / 4 / StreamSettings.ITEM_OVERHEAD_BYTES);
  }

  @Test
  void aSubscriberThatThrowsFromOnNextIsCancelledAndHearsNothingMore() {
    int[] cancels = {0};
    List<String> signals = new ArrayList<>();
    StreamReceiver receiver =
        new StreamReceiver(
            new StreamContext(Runnable::run),
            StreamSettings.DEFAULTS,
            new IgnoringOwner() {
              @Override
              public void receiverCancelled() {
                cancels[0]++;
              }
            });
    receiver.start(
        new Flow.Subscriber<>() {
          @Override
          public void onSubscribe(Flow.Subscription s) {
            s.request(10);
          }

          @Override
          public void onNext(byte[] item) {
            signals.add("item");
            if (signals.size() == 2) {
              throw new IllegalStateException("the subscriber broke");
            }
          }

          @Override
          public void onError(Throwable failure) {
            signals.add("error");
          }

          @Override
          public void onComplete() {
            signals.add("complete");
          }
        });
    receiver.attach(link);

    feed(receiver, 4, 8);
    receiver.onEnd(new StreamEnd(1, Status.OK, 4, Map.of()));

    assertThat(signals).containsExactly("item", "item");
    assertThat(cancels[0]).as("the peer is told to stop once").isEqualTo(1);
    assertThat(receiver.isDone()).isTrue();
  }

  private StreamReceiver receiverAskingFor(long n, StreamSettings settings) {
    StreamReceiver receiver =
        new StreamReceiver(new StreamContext(Runnable::run), settings, new IgnoringOwner());
    receiver.start(
        new Flow.Subscriber<>() {
          @Override
          public void onSubscribe(Flow.Subscription s) {
            s.request(n);
          }

          @Override
          public void onNext(byte[] item) {
            got.add(item);
          }

          @Override
          public void onError(Throwable failure) {}

          @Override
          public void onComplete() {}
        });
    receiver.attach(link);
    return receiver;
  }

  private static void feed(StreamReceiver receiver, int items, int bytes) {
    for (int i = 0; i < items; i++) {
      receiver.onItem(receiver.received() + 1, new byte[bytes]);
    }
  }

  private static class IgnoringOwner implements StreamReceiver.Owner {
    @Override
    public void receiverCancelled() {}

    @Override
    public void receiverDone() {}

    @Override
    public Throwable failureOf(StreamEnd end, long delivered) {
      return new IllegalStateException(end.toString());
    }
  }
}
