package dev.tether.internal;

import java.time.Duration;
import java.util.Locale;

/**
 * Reads configuration durations: a plain number of milliseconds ({@code 3000}) or a number with a
 * unit ({@code 200ms}, {@code 3s}, {@code 15min}, {@code 2h}).
 */
public final class DurationParser {
  private DurationParser() {}

  public static Duration parse(String key, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    int unitStart = 0;
    while (unitStart < t.length()
        && (Character.isDigit(t.charAt(unitStart)) || t.charAt(unitStart) == '-')) {
      unitStart++;
    }
    if (unitStart == 0) {
      throw invalid(key, text);
    }
    long amount;
    try {
      amount = Long.parseLong(t.substring(0, unitStart));
    } catch (NumberFormatException e) {
      throw invalid(key, text);
    }
    return switch (t.substring(unitStart).trim()) {
      case "", "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "min", "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      default -> throw invalid(key, text);
    };
  }

  private static IllegalArgumentException invalid(String key, String text) {
    return new IllegalArgumentException(
        key + ": \"" + text + "\" is not a duration (use 3000, 200ms, 3s, 15min or 2h)");
  }
}
