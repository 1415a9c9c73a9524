package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StreamPrinterTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private final AtomicLong requested = new AtomicLong();
  private final AtomicLong cancels = new AtomicLong();

  private StreamPrinter subscribed(long limit) {
    StreamPrinter printer =
        new StreamPrinter(
            new PrintWriter(out), new PrintWriter(err), StreamPrinter.Format.TEXT, limit);
    printer.onSubscribe(
        new Flow.Subscription() {
          @Override
          public void request(long n) {
            requested.addAndGet(n);
          }

          @Override
          public void cancel() {
            cancels.incrementAndGet();
          }
        });
    return printer;
  }

  @Test
  void printableItemsAreTextAndOthersHexWithOneNoteOnStandardError() {
    StreamPrinter printer = subscribed(Long.MAX_VALUE);

    printer.onNext("héllo".getBytes(StandardCharsets.UTF_8));
    printer.onNext(new byte[] {0, 1, (byte) 0xfe});
    printer.onNext("line\n".getBytes(StandardCharsets.UTF_8));
    printer.onNext(new byte[] {(byte) 0xc3});
    printer.onComplete();

    String nl = System.lineSeparator();
    assertThat(out).hasToString("héllo" + nl + "0001fe" + nl + "line" + nl + "c3" + nl);
    assertThat(err).hasToString("(item 2 is not printable text; such items are shown as hex)" + nl);
    assertThat(printer.done()).isCompletedWithValue(4L);
  }

  @Test
  void asksAFewItemsAheadAndOneMoreForEachItemPrinted() {
    StreamPrinter printer = subscribed(Long.MAX_VALUE);
    assertThat(requested).hasValue(StreamPrinter.AHEAD);

    printer.onNext("1".getBytes(StandardCharsets.US_ASCII));
    printer.onNext("2".getBytes(StandardCharsets.US_ASCII));

    assertThat(requested).hasValue(StreamPrinter.AHEAD + 2);
  }

  @Test
  void theLimitBoundsWhatIsAskedForAndCancelsOnTheLastItem() {
    StreamPrinter printer = subscribed(3);
    assertThat(requested).hasValue(3);

    for (int i = 1; i <= 3; i++) {
      printer.onNext(Integer.toString(i).getBytes(StandardCharsets.US_ASCII));
    }

    assertThat(requested).hasValue(3);
    assertThat(cancels).hasValue(1);
    assertThat(printer.done()).isCompletedWithValue(3L);
  }
}
