package dev.tether.chaos;

import java.util.ArrayList;
import java.util.List;

/** The broken promises a ledger's totals name, one line each, only those that happened. */
final class Violations {
  private final List<String> lines = new ArrayList<>();

  /** Names {@code what} with its count when it happened at least once. */
  Violations count(long n, String what) {
    if (n > 0) {
      lines.add(n + " " + what);
    }
    return this;
  }

  List<String> lines() {
    return lines;
  }
}
