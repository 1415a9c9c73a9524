package dev.tether.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IFactory;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code tether} command: the parent of {@code serve}, {@code call}, {@code status}, {@code
 * bench} and {@code demo}.
 */
@Command(
    name = "tether",
    mixinStandardHelpOptions = true,
    versionProvider = TetherCommand.Version.class,
    description = "Tether, an RPC runtime whose heart is connection management.",
    subcommands = {
      ServeCommand.class,
      CallCommand.class,
      StatusCommand.class,
      BenchCommand.class,
      DemoCommand.class,
      HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:the call or command failed; the message says why",
      "2:bad input: an option, a proxy string, a payload file"
    })
public final class TetherCommand implements Runnable {
  @Spec private CommandSpec spec;

  @Option(
      names = "--verbose",
      scope = ScopeType.INHERIT,
      description = "On failure, print the stack trace after the message.")
  private boolean verbose;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "name a command: serve, call, status, bench or demo");
  }

  /** The command line with Tether's error reporting, ready to {@code execute(args)}. */
  public static CommandLine newCommandLine() {
    return newCommandLine(CommandLine.defaultFactory());
  }

  /**
   * As {@link #newCommandLine()}, with subcommands made by {@code factory} (tests inject fakes).
   */
  public static CommandLine newCommandLine(IFactory factory) {
    CommandLine commandLine = new CommandLine(new TetherCommand(), factory);
    // "@file" is call's payload syntax; picocli would otherwise expand it as an argument file.
    commandLine.setExpandAtFiles(false);
    commandLine.setExecutionExceptionHandler(new FailureReporter());
    return commandLine;
  }

  /** The version from the jar's manifest; "development" when run from classes. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = TetherCommand.class.getPackage().getImplementationVersion();
      return new String[] {"tether " + (v == null ? "development" : v)};
    }
  }
}
