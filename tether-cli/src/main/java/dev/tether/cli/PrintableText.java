package dev.tether.cli;

/**
 * Text a server sent, made safe to print on a terminal: control characters (C0, DEL, C1) and the
 * Unicode controls that reorder or hide text are replaced by {@code ?}, so a hostile server cannot
 * move the cursor, clear the screen, retitle the window or disguise what it shows. Tabs and line
 * ends go too, so a value stays on its line, unless a multi-line message keeps its line feeds.
 */
final class PrintableText {
  private PrintableText() {}

  /** {@code text} on one line, every unsafe character replaced. */
  static String of(String text) {
    return replaced(text, false);
  }

  /** As {@link #of}, but line feeds stay: for multi-line messages. */
  static String keepingLines(String text) {
    return replaced(text, true);
  }

  private static String replaced(String text, boolean keepLineFeeds) {
    if (text == null) {
      return null;
    }
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (isUnsafe(c) && !(keepLineFeeds && c == '\n')) {
        if (out == null) {
          out = new StringBuilder(text.length()).append(text, 0, i);
        }
        out.append('?');
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? text : out.toString();
  }

  private static boolean isUnsafe(char c) {
    return Character.isISOControl(c)
        || (c >= '\u200b' && c <= '\u200f') // zero-width and direction marks
        || (c >= '\u202a' && c <= '\u202e') // bidirectional embeddings and overrides
        || (c >= '\u2066' && c <= '\u2069'); // bidirectional isolates
  }
}
