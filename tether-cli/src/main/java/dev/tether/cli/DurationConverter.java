package dev.tether.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads durations the way Tether's {@code tether.*} properties write them: a number of milliseconds
 * ({@code 500}) or a number with a unit ({@code 200ms}, {@code 2s}, {@code 1min}, {@code 1h}); also
 * ISO-8601 ({@code PT2S}). {@code infinite} means no limit and converts to null.
 */
public final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern AMOUNT_AND_UNIT = Pattern.compile("(\\d+)\\s*(ms|s|m|min|h)?");

  @Override
  public Duration convert(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("infinite")) {
      return null;
    }
    if (t.startsWith("pt")) {
      try {
        return Duration.parse(t);
      } catch (DateTimeParseException e) {
        throw invalid(text);
      }
    }
    Matcher m = AMOUNT_AND_UNIT.matcher(t);
    if (!m.matches()) {
      throw invalid(text);
    }
    long amount;
    try {
      amount = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw invalid(text);
    }
    String unit = m.group(2) == null ? "ms" : m.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m", "min" -> Duration.ofMinutes(amount);
      default -> Duration.ofHours(amount);
    };
  }

  private static TypeConversionException invalid(String text) {
    return new TypeConversionException(
        "'" + text + "' is not a duration (use 500ms, 2s, 1min, 1h or infinite)");
  }
}
