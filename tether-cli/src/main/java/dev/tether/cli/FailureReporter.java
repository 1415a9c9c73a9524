package dev.tether.cli;

import dev.tether.Attempt;
import dev.tether.ConnectionLostException;
import dev.tether.ProxyParseException;
import dev.tether.StreamLostException;
import dev.tether.TetherException;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns an exception escaping a command into one line on standard error and an exit code. A user of
 * a command line wants the reason, not a stack trace; {@code --verbose} adds the trace for a bug
 * report.
 */
final class FailureReporter implements IExecutionExceptionHandler {

  @Override
  public int handleExecutionException(Exception ex, CommandLine command, ParseResult parsed) {
    PrintWriter err = command.getErr();
    err.println(commandPath(command) + ": " + describe(ex));
    boolean verbose = isVerbose(parsed);
    // One attempt is already what the message says; several (a retried call) tell a story it may
    // not.
    if (ex instanceof TetherException te
        && (te.attempts().size() > 1 || (verbose && !te.attempts().isEmpty()))) {
      err.println("attempts:");
      for (Attempt a : te.attempts()) {
        err.println("  " + PrintableText.keepingLines(String.valueOf(a)));
      }
    }
    if (verbose) {
      // The trace holds the server's message too (and its causes'): filtered like it.
      StringWriter trace = new StringWriter();
      ex.printStackTrace(new PrintWriter(trace));
      err.print(PrintableText.keepingLines(trace.toString()));
    }
    err.flush();
    return exitCodeOf(ex);
  }

  /** The exception's type as {@link #typeOf} gives it, and its message. */
  static String describe(Throwable ex) {
    if (ex instanceof CliException) {
      return ex.getMessage();
    }
    String type = typeOf(ex);
    // A remote error's message is the server's text: printed without its control characters.
    return ex.getMessage() == null
        ? type
        : type + ": " + PrintableText.keepingLines(ex.getMessage());
  }

  /**
   * The exception's type; for a lost connection, also whether the call may have run; for a lost
   * stream, how many items it delivered.
   */
  static String typeOf(Throwable ex) {
    String type = ex.getClass().getSimpleName();
    if (ex instanceof ConnectionLostException lost) {
      type += " (mayHaveExecuted=" + lost.mayHaveExecuted() + ")";
    }
    if (ex instanceof StreamLostException lost) {
      // What the user needs to reopen from: the items before it arrived, each once and in order.
      type += " (delivered=" + lost.delivered() + ")";
    }
    return type;
  }

  static int exitCodeOf(Throwable ex) {
    if (ex instanceof CliException cli) {
      return cli.exitCode();
    }
    // Both come from strings the user typed: a proxy, endpoints, a duration.
    if (ex instanceof ProxyParseException || ex instanceof IllegalArgumentException) {
      return ExitCode.USAGE;
    }
    return ExitCode.SOFTWARE;
  }

  private static String commandPath(CommandLine command) {
    StringBuilder path = new StringBuilder(command.getCommandName());
    for (CommandLine c = command.getParent(); c != null; c = c.getParent()) {
      path.insert(0, c.getCommandName() + " ");
    }
    return path.toString();
  }

  /** True when {@code --verbose} was given at any level of the command path. */
  private static boolean isVerbose(ParseResult parsed) {
    for (ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption("--verbose")) {
        return true;
      }
    }
    return false;
  }
}
