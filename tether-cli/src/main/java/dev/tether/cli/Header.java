package dev.tether.cli;

import java.util.Locale;

/**
 * One {@code -H key:value} of {@code tether call} and {@code tether bench}: a request header, sent
 * as the call's metadata (Tether) or as gRPC metadata. Keys are lower case, as HTTP/2 requires.
 */
record Header(String key, String value) {

  /**
   * Reads {@code key:value}; spaces around the key and before the value are dropped, as curl and
   * grpcurl do, so {@code "key: value"} reads the same.
   */
  static Header parse(String text) {
    int colon = text.indexOf(':');
    String key = colon < 0 ? "" : text.substring(0, colon).strip().toLowerCase(Locale.ROOT);
    if (key.isEmpty()) {
      throw CliException.badInput(
          "-H takes key:value (e.g. -H authorization:'Bearer t0ken'), not '"
              + PrintableText.of(text)
              + "'",
          null);
    }
    return new Header(key, text.substring(colon + 1).stripLeading());
  }

  /** A key ending in {@code -bin} carries bytes; on the command line its value is base64. */
  boolean isBinary() {
    return key.endsWith("-bin");
  }
}
