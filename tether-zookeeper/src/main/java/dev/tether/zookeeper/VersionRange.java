package dev.tether.zookeeper;

import java.util.Arrays;

/**
 * Which server versions a discovery keeps, in Maven's interval notation as {@code
 * Proxy.withServerVersion} reads it: {@code [2.0,3.0)}, {@code [2.1,)}, or a bare {@code 1.5} for
 * exactly that version. Versions compare number by number; missing numbers are 0.
 */
record VersionRange(int[] lowest, boolean lowestIncluded, int[] highest, boolean highestIncluded) {
  /** Every version. */
  static final VersionRange ANY = new VersionRange(null, true, null, true);

  static VersionRange parse(String text) {
    String t = text.trim();
    boolean interval = t.startsWith("[") || t.startsWith("(");
    if (!interval) {
      int[] exact = numbers(t);
      return new VersionRange(exact, true, exact, true);
    }
    int comma = t.indexOf(',');
    char last = t.charAt(t.length() - 1);
    if (comma < 0 || (last != ']' && last != ')')) {
      throw new IllegalArgumentException("\"" + text + "\" is not a version range like [2.0,3.0)");
    }
    String low = t.substring(1, comma).trim();
    String high = t.substring(comma + 1, t.length() - 1).trim();
    return new VersionRange(
        low.isEmpty() ? null : numbers(low),
        t.charAt(0) == '[',
        high.isEmpty() ? null : numbers(high),
        last == ']');
  }

  boolean contains(String version) {
    int[] v = numbers(version);
    return above(v) && below(v);
  }

  private boolean above(int[] v) {
    if (lowest == null) {
      return true;
    }
    int c = Arrays.compare(padded(v, lowest.length), padded(lowest, v.length));
    return c > 0 || (c == 0 && lowestIncluded);
  }

  private boolean below(int[] v) {
    if (highest == null) {
      return true;
    }
    int c = Arrays.compare(padded(v, highest.length), padded(highest, v.length));
    return c < 0 || (c == 0 && highestIncluded);
  }

  /** "2.10-beta" reads as 2.10: the qualifier does not order versions here. */
  private static int[] numbers(String version) {
    String[] parts = version.trim().split("\\.");
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      String digits = parts[i].replaceAll("\\D.*$", "");
      out[i] = digits.isEmpty() ? 0 : Integer.parseInt(digits);
    }
    return out;
  }

  private static int[] padded(int[] v, int length) {
    return v.length >= length ? v : Arrays.copyOf(v, length);
  }
}
