package dev.tether.stream;

import dev.tether.internal.DurationParser;
import java.time.Duration;
import java.util.Locale;
import java.util.function.BinaryOperator;

/**
 * How streams behave, the same on both sides: {@code window} items a receiver holds beyond what
 * its subscriber asked for (tether.stream.window), {@code resumeBufferBytes} of sent items kept
 * until acknowledged (tether.stream.resumeBuffer), and how long a stream whose connection broke
 * waits to be resumed (tether.stream.resumeWindow).
 */
public record StreamSettings(int window, long resumeBufferBytes, Duration resumeWindow) {
  public static final StreamSettings DEFAULTS = new StreamSettings(64, 1 << 20, Duration.ofSeconds(30));

  public static final String WINDOW = "tether.stream.window";
  public static final String RESUME_BUFFER = "tether.stream.resumeBuffer";
  public static final String RESUME_WINDOW = "tether.stream.resumeWindow";

  /**
   * Reads the three keys through {@code lookup(key, fallback)}; a bad value fails naming its key.
   * The buffer is bytes, or a number with KiB or MiB.
   */
  public static StreamSettings parse(BinaryOperator<String> lookup) {
    String window = lookup.apply(WINDOW, "64").trim();
    int items;
    try {
      items = Integer.parseInt(window);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(WINDOW + " must be a whole number of items, got \"" + window + "\"");
    }
    return new StreamSettings(items, bytes(lookup.apply(RESUME_BUFFER, "1MiB")),
        DurationParser.parse(RESUME_WINDOW, lookup.apply(RESUME_WINDOW, "30s")));
  }

  private static long bytes(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    long unit = t.endsWith("kib") ? 1024 : t.endsWith("mib") ? 1024 * 1024 : 1;
    String digits = unit == 1 ? t : t.substring(0, t.length() - 3).trim();
    try {
      return Math.multiplyExact(Long.parseLong(digits), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(RESUME_BUFFER + " must be bytes, or a number with KiB or MiB, got \"" + text + "\"");
    }
  }

  public StreamSettings {
    if (window < 1) {
      throw new IllegalArgumentException("tether.stream.window must be at least 1: " + window);
    }
    if (resumeBufferBytes < 0) {
      throw new IllegalArgumentException("tether.stream.resumeBuffer must not be negative: " + resumeBufferBytes);
    }
    if (resumeWindow.isNegative()) {
      throw new IllegalArgumentException("tether.stream.resumeWindow must not be negative: " + resumeWindow);
    }
  }
}
