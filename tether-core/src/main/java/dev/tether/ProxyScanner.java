package dev.tether;

/**
 * Splits a proxy or endpoint string into tokens, one at a time, remembering where each token starts
 * so that {@link ProxyGrammar} can name the offending position in its errors.
 *
 * <p>The lexical rules live here and nowhere else: a token is a ':' separator, a double-quoted
 * string (in which {@code \"} and {@code \\} are the only escapes), or an unquoted word running up
 * to whitespace, ':' or '"'. {@link #quoteIfNeeded(String)} applies the same rules in reverse, so
 * that whatever the printer writes, the scanner reads back unchanged.
 */
final class ProxyScanner {
  /** What a token is. */
  enum Kind {
    /** An unquoted run of characters other than whitespace, ':' and '"'. */
    WORD,
    /** A double-quoted string; the token text is unescaped and without the quotes. */
    QUOTED,
    /** The ':' before each endpoint. */
    COLON,
    /** The end of the input; its position is the input length. */
    END
  }

  /** One token and the zero-based index of its first character in the input. */
  record Token(Kind kind, String text, int position) {
    boolean is(Kind expected) {
      return kind == expected;
    }

    /** True for the ':' and the end, where an option list or an endpoint stops. */
    boolean endsEndpoint() {
      return kind == Kind.COLON || kind == Kind.END;
    }

    /**
     * True for an unquoted word starting with '-', except a negative number: Ice writes an infinite
     * timeout as {@code -t -1}, so "-1" must read as a value, not as the next option.
     */
    boolean isOption() {
      return kind == Kind.WORD && text.startsWith("-") && !isNegativeNumber(text);
    }

    /** How the token reads in an error message. */
    String describe() {
      return switch (kind) {
        case WORD -> "'" + text + "'";
        case QUOTED -> "\"" + text + "\"";
        case COLON -> "':'";
        case END -> "the end";
      };
    }

    private static boolean isNegativeNumber(String text) {
      return text.length() > 1 && text.chars().skip(1).allMatch(c -> c >= '0' && c <= '9');
    }
  }

  private final String input;
  private int offset;

  /** The token {@link #peek()} has read ahead; non-null only until {@link #next()} takes it. */
  private Token lookahead;

  ProxyScanner(String input) {
    this.input = input;
  }

  /** Returns the next token without consuming it. */
  Token peek() {
    if (lookahead == null) {
      lookahead = scan();
    }
    return lookahead;
  }

  /** Consumes and returns the next token. */
  Token next() {
    Token token = peek();
    lookahead = null;
    return token;
  }

  /** An error at the token's position, quoting the whole input. */
  ProxyParseException errorAt(Token token, String problem) {
    return new ProxyParseException(input, token.position(), problem);
  }

  /**
   * Writes {@code text} so that it scans back as one token with the same text: bare when it is a
   * plain word, quoted when it is empty, holds a separator or a quote, or would read as an option.
   */
  static String quoteIfNeeded(String text) {
    boolean plainWord =
        !text.isEmpty()
            && !text.startsWith("-")
            && text.chars().allMatch(c -> isWordChar((char) c));
    if (plainWord) {
      return text;
    }
    return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  // Scanning is lazy, not a pass over the whole input up front, so that an unterminated quote late
  // in the string does not hide an earlier error: problems are reported in reading order.
  private Token scan() {
    skipWhitespace();
    if (offset == input.length()) {
      return new Token(Kind.END, "", offset);
    }
    char c = input.charAt(offset);
    if (c == ':') {
      offset++;
      return new Token(Kind.COLON, ":", offset - 1);
    }
    return c == '"' ? scanQuoted() : scanWord();
  }

  private Token scanWord() {
    int start = offset;
    while (offset < input.length() && isWordChar(input.charAt(offset))) {
      offset++;
    }
    return new Token(Kind.WORD, input.substring(start, offset), start);
  }

  private Token scanQuoted() {
    int start = offset++;
    StringBuilder text = new StringBuilder();
    while (offset < input.length()) {
      char c = input.charAt(offset++);
      if (c == '"') {
        return new Token(Kind.QUOTED, text.toString(), start);
      }
      // A backslash before anything other than '"' or '\' stands for itself, so that hosts and
      // identities holding a lone backslash need no doubling when written by hand.
      if (c == '\\' && offset < input.length() && isEscapable(input.charAt(offset))) {
        c = input.charAt(offset++);
      }
      text.append(c);
    }
    throw new ProxyParseException(input, start, "unterminated quote");
  }

  private void skipWhitespace() {
    while (offset < input.length() && isWhitespace(input.charAt(offset))) {
      offset++;
    }
  }

  private static boolean isEscapable(char c) {
    return c == '"' || c == '\\';
  }

  private static boolean isWordChar(char c) {
    return !isWhitespace(c) && c != ':' && c != '"';
  }

  private static boolean isWhitespace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  }
}
