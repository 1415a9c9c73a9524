package dev.tether.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads a phase length from the command line: a number with a unit ({@code 500ms}, {@code 5s},
 * {@code 2min}) or a plain number of seconds ({@code 10}).
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|min)?");

  @Override
  public Duration convert(String text) {
    Matcher matcher = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!matcher.matches()) {
      throw new CommandLine.TypeConversionException(
          "'" + text + "' is not a duration such as 500ms, 5s, 2min or 10");
    }
    long amount = Long.parseLong(matcher.group(1));
    String unit = matcher.group(2) == null ? "s" : matcher.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(amount);
      case "min" -> Duration.ofMinutes(amount);
      default -> Duration.ofSeconds(amount);
    };
  }

  /** The shortest of the accepted forms for {@code duration}. */
  static String format(Duration duration) {
    long millis = duration.toMillis();
    return millis % 1_000 == 0 ? millis / 1_000 + "s" : millis + "ms";
  }
}
