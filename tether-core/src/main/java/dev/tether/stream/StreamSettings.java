package dev.tether.stream;

import dev.tether.internal.DurationParser;
import java.time.Duration;
import java.util.Locale;
import java.util.function.BinaryOperator;

/**
 * How streams behave, the same on both sides: a receiver credits its sender at most {@code window}
 * items beyond what its subscriber took (tether.stream.window), or more small items up to {@code
 * windowBytes} (tether.stream.windowBytes); {@code resumeBufferBytes} of sent items are kept until
 * acknowledged (tether.stream.resumeBuffer); a stream whose connection broke waits {@code
 * resumeWindow} to be resumed (tether.stream.resumeWindow).
 */
public record StreamSettings(
    int window, long windowBytes, long resumeBufferBytes, Duration resumeWindow) {
  public static final StreamSettings DEFAULTS =
      new StreamSettings(64, 64 << 10, 1 << 20, Duration.ofSeconds(30));

  /**
   * What an item costs beyond its body: its frame's header and position, its array's header in
   * memory.
   */
  static final int ITEM_OVERHEAD_BYTES = 32;

  public static final String WINDOW = "tether.stream.window";
  public static final String WINDOW_BYTES = "tether.stream.windowBytes";
  public static final String RESUME_BUFFER = "tether.stream.resumeBuffer";
  public static final String RESUME_WINDOW = "tether.stream.resumeWindow";

  /**
   * Reads the four keys through {@code lookup(key, fallback)}; a bad value fails naming its key.
   * Sizes are bytes, or a number with KiB or MiB.
   */
  public static StreamSettings parse(BinaryOperator<String> lookup) {
    String window = lookup.apply(WINDOW, "64").trim();
    int items;
    try {
      items = Integer.parseInt(window);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          WINDOW + " must be a whole number of items, got \"" + window + "\"");
    }
    return new StreamSettings(
        items,
        bytes(WINDOW_BYTES, lookup.apply(WINDOW_BYTES, "64KiB")),
        bytes(RESUME_BUFFER, lookup.apply(RESUME_BUFFER, "1MiB")),
        DurationParser.parse(RESUME_WINDOW, lookup.apply(RESUME_WINDOW, "30s")));
  }

  /**
   * How many items a receiver may credit beyond what its subscriber took, when the largest item so
   * far had {@code largestItemBytes}: the window, or more while that many fit in the window's
   * bytes, and in a quarter of the resume buffer, so a stream that credits more stays resumable.
   */
  public int windowFor(int largestItemBytes) {
    long bytes =
        resumeBufferBytes == 0 ? windowBytes : Math.min(windowBytes, resumeBufferBytes / 4);
    long fitting = bytes / (largestItemBytes + ITEM_OVERHEAD_BYTES);
    return (int) Math.max(window, Math.min(fitting, Integer.MAX_VALUE));
  }

  private static long bytes(String key, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit = t.endsWith("kib") ? 1024 : t.endsWith("mib") ? 1024 * 1024 : 1;
    String digits = unit == 1 ? t : t.substring(0, t.length() - 3).trim();
    try {
      return Math.multiplyExact(Long.parseLong(digits), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          key + " must be bytes, or a number with KiB or MiB, got \"" + text + "\"");
    }
  }

  public StreamSettings {
    if (window < 1) {
      throw new IllegalArgumentException("tether.stream.window must be at least 1: " + window);
    }
    if (windowBytes < 0) {
      throw new IllegalArgumentException(
          "tether.stream.windowBytes must not be negative: " + windowBytes);
    }
    if (resumeBufferBytes < 0) {
      throw new IllegalArgumentException(
          "tether.stream.resumeBuffer must not be negative: " + resumeBufferBytes);
    }
    if (resumeWindow.isNegative()) {
      throw new IllegalArgumentException(
          "tether.stream.resumeWindow must not be negative: " + resumeWindow);
    }
  }
}
