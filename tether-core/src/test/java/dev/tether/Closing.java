package dev.tether;

/**
 * A test's cleanup: closes what it opened, in the order given (clients before servers), skipping
 * what it never made.
 */
public final class Closing {
  private Closing() {}

  public static void all(AutoCloseable... opened) throws Exception {
    for (AutoCloseable c : opened) {
      if (c != null) {
        c.close();
      }
    }
  }
}
