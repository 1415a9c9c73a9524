package dev.tether.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the tether command line in-process and keeps what it printed. */
record CliRun(int exitCode, String out, String err) {

  static CliRun run(String... args) {
    return run(CommandLine.defaultFactory(), args);
  }

  /**
   * Makes {@code serve} stop when the runnable handed to {@code stopSignal} is run, instead of on
   * Ctrl-C.
   */
  static CommandLine.IFactory stoppableServe(java.util.function.Consumer<Runnable> stopSignal) {
    return new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> type) throws Exception {
        return type == ServeCommand.class
            ? type.cast(new ServeCommand(stopSignal::accept))
            : CommandLine.defaultFactory().create(type);
      }
    };
  }

  static CliRun run(CommandLine.IFactory factory, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = TetherCommand.newCommandLine(factory);
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int code = commandLine.execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }
}
