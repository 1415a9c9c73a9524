package dev.tether.cli;

import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * What {@code tether call --stream} subscribes with: prints each item on its own line as it
 * arrives, as text when it is printable UTF-8 and as hex otherwise (or always as hex, or as JSON),
 * and cancels the stream once {@code limit} items arrived. It asks for a few items ahead, so a slow
 * terminal slows the stream instead of piling items up. {@link #done()} completes with the number
 * of items printed, or with the stream's failure.
 */
final class StreamPrinter implements Flow.Subscriber<byte[]> {
  /** How many items it asks for ahead of what it printed. */
  static final long AHEAD = 16;

  /** How each item becomes a line. */
  enum Format {
    /** Printable UTF-8 as it is, anything else as hex (said once on standard error). */
    TEXT,
    HEX,
    /** Each item a value in the default codec, printed as compact JSON. */
    JSON
  }

  private final PrintWriter out;
  private final PrintWriter err;
  private final Format format;

  /** Long.MAX_VALUE: until the stream ends. */
  private final long limit;

  private final CompletableFuture<Long> done = new CompletableFuture<>();
  // Signals arrive one at a time (Reactive Streams rule 1.3), each after the previous one
  // happened-before it, so these need no lock.
  // The two below are volatile for cancel(), which runs on the command's thread.
  private volatile Flow.Subscription subscription;
  private volatile long printed;
  private long requested;
  private boolean saidHex;

  StreamPrinter(PrintWriter out, PrintWriter err, Format format, long limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive: " + limit);
    }
    this.out = out;
    this.err = err;
    this.format = format;
    this.limit = limit;
  }

  /**
   * Completes with the items printed when the stream ended or reached the limit; exceptionally when
   * it failed.
   */
  CompletableFuture<Long> done() {
    return done;
  }

  /** Cancels the stream from outside (the command was interrupted); what was printed stays. */
  void cancel() {
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
    done.complete(printed);
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    askFor(Math.min(AHEAD, limit));
  }

  @Override
  public void onNext(byte[] item) {
    if (done.isDone()) {
      return;
    }
    try {
      print(item);
    } catch (RuntimeException e) {
      // An item the format cannot show (not JSON, say) ends the stream with that reason.
      subscription.cancel();
      done.completeExceptionally(e);
      return;
    }
    printed = printed + 1; // only this signal thread writes it
    if (printed == limit) {
      subscription.cancel();
      done.complete(printed);
    } else if (requested < limit) {
      askFor(1);
    }
  }

  @Override
  public void onError(Throwable failure) {
    out.flush();
    done.completeExceptionally(failure);
  }

  @Override
  public void onComplete() {
    out.flush();
    done.complete(printed);
  }

  private void askFor(long n) {
    requested += n;
    subscription.request(n);
  }

  private void print(byte[] item) {
    String line =
        switch (format) {
          case HEX -> Payloads.hex(item);
          case JSON -> Payloads.jsonResult(item);
          case TEXT -> textOrHex(item);
        };
    out.println(line);
    out.flush();
  }

  private String textOrHex(byte[] item) {
    String text = Payloads.printableOrNull(item);
    if (text != null) {
      // One line per item: an item that ends its own line does not get a blank one after it.
      return text.endsWith("\n")
          ? text.substring(0, text.length() - (text.endsWith("\r\n") ? 2 : 1))
          : text;
    }
    if (!saidHex) {
      saidHex = true;
      err.println(
          "(item " + (printed + 1) + " is not printable text; such items are shown as hex)");
      err.flush();
    }
    return Payloads.hex(item);
  }
}
