package dev.tether.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * A status page's access token from one of three places: the command line (seen by anyone who can
 * list processes), a file, or an environment variable. The token itself is never put in a message:
 * errors name the option, the file or the variable.
 */
final class AccessToken {
  private AccessToken() {}

  /**
   * The token, or null when none of the three is given.
   *
   * @param option the literal option's name, e.g. {@code --token}; the others are it with {@code
   *     -file} and {@code -env}
   * @param environment reads an environment variable (System::getenv), null when unset
   */
  static String resolve(
      String option,
      String literal,
      Path file,
      String variable,
      UnaryOperator<String> environment) {
    int given = (literal != null ? 1 : 0) + (file != null ? 1 : 0) + (variable != null ? 1 : 0);
    if (given > 1) {
      throw CliException.badInput(
          "give the token one way: " + option + ", " + option + "-file or " + option + "-env",
          null);
    }
    if (literal != null) {
      return requireNonBlank(literal, option);
    }
    if (file != null) {
      return requireNonBlank(read(file, option), option + "-file " + file);
    }
    if (variable != null) {
      String value = environment.apply(variable);
      if (value == null) {
        throw CliException.badInput(
            option + "-env " + variable + ": no such environment variable", null);
      }
      return requireNonBlank(value.strip(), option + "-env " + variable);
    }
    return null;
  }

  private static String read(Path file, String option) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      // The exception's own text names the file and the reason; it cannot hold the contents.
      throw CliException.badInput(option + "-file: cannot read " + file + ": " + e, e);
    }
  }

  private static String requireNonBlank(String token, String from) {
    if (token.isBlank()) {
      throw CliException.badInput(from + ": the token is empty", null);
    }
    // A second line, a space or a control character: the message must not show where, since
    // whatever it quoted would be part of the token.
    boolean oneWord =
        token.codePoints().noneMatch(c -> Character.isWhitespace(c) || PrintableText.isUnsafe(c));
    if (!oneWord) {
      throw CliException.badInput(
          from
              + ": the token holds a space, a line break or a control character; a token is one"
              + " word (a token file holds it alone on one line)",
          null);
    }
    return token;
  }
}
