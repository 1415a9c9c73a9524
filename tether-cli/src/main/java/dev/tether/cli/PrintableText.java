package dev.tether.cli;

/**
 * Text a server sent, made safe to print on a terminal: control characters (C0, DEL, C1) and the
 * Unicode controls that reorder or hide text are replaced by {@code ?}, so a hostile server cannot
 * move the cursor, clear the screen, retitle the window or disguise what it shows. Tabs and line
 * ends go too, so a value stays on its line, unless a multi-line message keeps its line feeds and
 * tabs. Works on code points, so an invisible character outside the basic plane (a tag) goes whole.
 */
final class PrintableText {
  private PrintableText() {}

  /** {@code text} on one line, every unsafe character replaced. */
  static String of(String text) {
    return replaced(text, false);
  }

  /** As {@link #of}, but line feeds and tabs stay: for multi-line messages and stack traces. */
  static String keepingLines(String text) {
    return replaced(text, true);
  }

  private static String replaced(String text, boolean keepLines) {
    if (text == null) {
      return null;
    }
    StringBuilder out = null;
    int i = 0;
    while (i < text.length()) {
      int c = text.codePointAt(i);
      int next = i + Character.charCount(c);
      if (isUnsafe(c) && !(keepLines && (c == '\n' || c == '\t'))) {
        if (out == null) {
          out = new StringBuilder(text.length()).append(text, 0, i);
        }
        out.append('?');
      } else if (out != null) {
        out.appendCodePoint(c);
      }
      i = next;
    }
    return out == null ? text : out.toString();
  }

  /** Whether a terminal could be made to act on, hide or reorder text with this code point. */
  static boolean isUnsafe(int c) {
    return Character.isISOControl(c)
        || c == '\u061c' // Arabic letter mark, a direction mark
        || (c >= '\u200b' && c <= '\u200f') // zero-width and direction marks
        || c == '\u2028'
        || c == '\u2029' // line and paragraph separators: line ends to some terminals
        || (c >= '\u202a' && c <= '\u202e') // bidirectional embeddings and overrides
        || (c >= '\u2066' && c <= '\u2069') // bidirectional isolates
        || c == '\ufeff' // zero-width no-break space
        || (c >= 0xE0000 && c <= 0xE007F); // tag characters, invisible
  }
}
