package dev.tether.cluster;

import dev.tether.internal.DurationParser;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;

/**
 * How {@link EpsilonGreedySelector} learns (the RethinkDB driver's settings): how long a latency
 * counts, in how many buckets, how an average becomes a weight, and how much it explores. Read from
 * {@code tether.lb.epsilon.*} properties by {@link #from(Properties)}; a bad value fails with an
 * {@link IllegalArgumentException} naming its key. {@link #defaults()} is the RethinkDB driver's
 * setting.
 *
 * @param decayDuration how long a latency counts; divided into {@code buckets} periods ({@code
 *     tether.lb.epsilon.decay}, 5 min)
 * @param buckets how many periods a node's latencies are kept in; the current one weighs {@code
 *     buckets}, the oldest 1 ({@code tether.lb.epsilon.buckets}, 120, at most 10,000)
 * @param calculator turns a node's average latency into its weight ({@code
 *     tether.lb.epsilon.calculator}: {@code linear} (default), {@code logarithmic} or {@code
 *     polynomial(EXPONENT)}, e.g. {@code polynomial(2)})
 * @param initialEpsilon the share of picks that explore at first, in (0, 1] ({@code
 *     tether.lb.epsilon.initial}, 0.3)
 * @param minEpsilon the floor epsilon decays to (x0.9 per period), in [0, initialEpsilon] ({@code
 *     tether.lb.epsilon.floor}, 0.05)
 */
public record EpsilonGreedySettings(
    Duration decayDuration,
    int buckets,
    EpsilonCalculator calculator,
    double initialEpsilon,
    double minEpsilon) {
  public static final String DECAY = "tether.lb.epsilon.decay";
  public static final String BUCKETS = "tether.lb.epsilon.buckets";
  public static final String CALCULATOR = "tether.lb.epsilon.calculator";
  public static final String INITIAL = "tether.lb.epsilon.initial";
  public static final String FLOOR = "tether.lb.epsilon.floor";

  /** More buckets than this cost a pick's refresh more than they teach. */
  static final int MAX_BUCKETS = 10_000;

  public EpsilonGreedySettings {
    Objects.requireNonNull(decayDuration, "decayDuration");
    Objects.requireNonNull(calculator, "calculator");
    if (buckets < 1 || buckets > MAX_BUCKETS) {
      throw new IllegalArgumentException(
          BUCKETS + " must be between 1 and " + MAX_BUCKETS + ": " + buckets);
    }
    if (decayDuration.isNegative() || decayDuration.toNanos() / buckets < 1) {
      throw new IllegalArgumentException(
          DECAY
              + " must give every one of the "
              + buckets
              + " buckets ("
              + BUCKETS
              + ") at least 1 ns: "
              + decayDuration);
    }
    if (!(initialEpsilon > 0 && initialEpsilon <= 1)) {
      throw new IllegalArgumentException(
          INITIAL + " must be above 0 and at most 1: " + initialEpsilon);
    }
    if (!(minEpsilon >= 0 && minEpsilon <= initialEpsilon)) {
      throw new IllegalArgumentException(
          FLOOR + " must be between 0 and " + INITIAL + " (" + initialEpsilon + "): " + minEpsilon);
    }
  }

  /**
   * The RethinkDB driver's defaults: 5 minutes in 120 buckets of 2.5 s, linear, epsilon 0.3
   * decaying to 0.05.
   */
  public static EpsilonGreedySettings defaults() {
    return new EpsilonGreedySettings(
        Duration.ofMinutes(5), 120, EpsilonCalculator.linear(), 0.3, 0.05);
  }

  /** The settings {@code p} gives, each key it leaves out at its default. */
  public static EpsilonGreedySettings from(Properties p) {
    EpsilonGreedySettings d = defaults();
    String decay = p.getProperty(DECAY);
    return new EpsilonGreedySettings(
        decay == null || decay.isBlank() ? d.decayDuration() : DurationParser.parse(DECAY, decay),
        (int) number(p, BUCKETS, d.buckets(), true),
        calculator(p.getProperty(CALCULATOR)),
        number(p, INITIAL, d.initialEpsilon(), false),
        number(p, FLOOR, d.minEpsilon(), false));
  }

  private static double number(Properties p, String key, double fallback, boolean integral) {
    String v = p.getProperty(key);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      return integral ? Integer.parseInt(v.trim()) : Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          key + ": \"" + v + "\" is not " + (integral ? "a whole number" : "a number"));
    }
  }

  /**
   * {@code linear}, {@code logarithmic} or {@code polynomial(EXPONENT)}; null or blank for linear.
   */
  static EpsilonCalculator calculator(String text) {
    if (text == null || text.isBlank()) {
      return EpsilonCalculator.linear();
    }
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("linear")) {
      return EpsilonCalculator.linear();
    }
    if (t.equals("logarithmic")) {
      return EpsilonCalculator.logarithmic();
    }
    if (t.startsWith("polynomial(") && t.endsWith(")")) {
      String exponent = t.substring("polynomial(".length(), t.length() - 1).trim();
      try {
        return EpsilonCalculator.polynomial(Double.parseDouble(exponent));
      } catch (IllegalArgumentException e) { // NumberFormatException too
        throw new IllegalArgumentException(
            CALCULATOR + ": \"" + text + "\" needs a positive, finite exponent", e);
      }
    }
    throw new IllegalArgumentException(
        CALCULATOR
            + ": \""
            + text
            + "\" is not linear, logarithmic or polynomial(EXPONENT), e.g. polynomial(2)");
  }
}
