package dev.tether.cli;

import picocli.CommandLine.ExitCode;

/**
 * A failure the command line explains in one message of its own, with the exit code it deserves:
 * {@link ExitCode#USAGE} when the user's input is at fault, {@link ExitCode#SOFTWARE} otherwise.
 */
public final class CliException extends RuntimeException {
  private final int exitCode;

  private CliException(String message, Throwable cause, int exitCode) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  /** The input (an option, a proxy string, a payload file) is wrong; exit code 2. */
  public static CliException badInput(String message, Throwable cause) {
    return new CliException(message, cause, ExitCode.USAGE);
  }

  /** The command could not do its work; exit code 1. */
  public static CliException failed(String message, Throwable cause) {
    return new CliException(message, cause, ExitCode.SOFTWARE);
  }

  /**
   * A bad proxy or endpoint string, shown with a caret under the offending position so the user
   * need not count characters.
   */
  public static CliException badProxyString(
      String what, String input, dev.tether.ProxyParseException e) {
    int caret = Math.max(0, Math.min(e.position(), input.length()));
    String message =
        "bad "
            + what
            + ": "
            + e.getMessage()
            + System.lineSeparator()
            + "  "
            + input
            + System.lineSeparator()
            + "  "
            + " ".repeat(caret)
            + "^";
    return badInput(message, e);
  }

  public int exitCode() {
    return exitCode;
  }
}
