package dev.tether.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A range of server versions in Maven's interval notation: {@code [2.0,3.0)} is 2.0 inclusive to
 * 3.0 exclusive, {@code [2.1,)} is 2.1 or later, {@code 1.5} alone means exactly 1.5. Versions
 * compare number by number ("2.10" is after "2.9"); a missing number counts as 0. Two ranges are
 * equal when they hold the same versions however they were written ({@code [2,3)} equals {@code
 * [2.0, 3.0.0)}), so proxies that ask for the same range share a node group.
 */
public final class VersionRange {
  private final String text;

  /** Null when unbounded below. */
  private final String lower;

  private final boolean lowerInclusive;

  /** Null when unbounded above. */
  private final String upper;

  private final boolean upperInclusive;

  private VersionRange(
      String text, String lower, boolean lowerInclusive, String upper, boolean upperInclusive) {
    this.text = text;
    this.lower = lower;
    // An open end has no bound to include: "[,3)" and "(,3)" are the same range.
    this.lowerInclusive = lower != null && lowerInclusive;
    this.upper = upper;
    this.upperInclusive = upper != null && upperInclusive;
  }

  public static VersionRange parse(String text) {
    String t = text.trim();
    if (t.isEmpty()) {
      throw new IllegalArgumentException("empty version range");
    }
    char open = t.charAt(0);
    if (open != '[' && open != '(') {
      return new VersionRange(text, t, true, t, true);
    }
    char close = t.charAt(t.length() - 1);
    int comma = t.indexOf(',');
    if ((close != ']' && close != ')') || comma < 0) {
      throw new IllegalArgumentException("\"" + text + "\" is not a version range like [2.0,3.0)");
    }
    String lo = t.substring(1, comma).trim();
    String hi = t.substring(comma + 1, t.length() - 1).trim();
    return new VersionRange(
        text, lo.isEmpty() ? null : lo, open == '[', hi.isEmpty() ? null : hi, close == ']');
  }

  public boolean contains(String version) {
    if (lower != null) {
      int c = compare(version, lower);
      if (c < 0 || (c == 0 && !lowerInclusive)) {
        return false;
      }
    }
    if (upper != null) {
      int c = compare(version, upper);
      return c < 0 || (c == 0 && upperInclusive);
    }
    return true;
  }

  static int compare(String a, String b) {
    List<Long> x = numbers(a);
    List<Long> y = numbers(b);
    for (int i = 0; i < Math.max(x.size(), y.size()); i++) {
      long xi = i < x.size() ? x.get(i) : 0;
      long yi = i < y.size() ? y.get(i) : 0;
      if (xi != yi) {
        return Long.compare(xi, yi);
      }
    }
    return 0;
  }

  private static List<Long> numbers(String version) {
    List<Long> out = new ArrayList<>();
    for (String part : version.split("[.\\-]")) {
      String digits = part.replaceAll("[^0-9].*$", "");
      out.add(digits.isEmpty() ? 0 : Long.parseLong(digits));
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VersionRange r
        && lowerInclusive == r.lowerInclusive
        && upperInclusive == r.upperInclusive
        && sameBound(lower, r.lower)
        && sameBound(upper, r.upper);
  }

  @Override
  public int hashCode() {
    return Objects.hash(canonical(lower), lowerInclusive, canonical(upper), upperInclusive);
  }

  private static boolean sameBound(String a, String b) {
    return a == null ? b == null : b != null && compare(a, b) == 0;
  }

  /**
   * The bound's numbers without trailing zeros, which {@link #compare} ignores; null for an open
   * end.
   */
  private static List<Long> canonical(String bound) {
    if (bound == null) {
      return null;
    }
    List<Long> n = numbers(bound);
    int end = n.size();
    while (end > 0 && n.get(end - 1) == 0) {
      end--;
    }
    return n.subList(0, end);
  }

  @Override
  public String toString() {
    return text;
  }
}
