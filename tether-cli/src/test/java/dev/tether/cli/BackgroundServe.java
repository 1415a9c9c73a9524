package dev.tether.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;

/**
 * {@code tether serve ...} running on another thread, with what it printed so far and the stop
 * request it registered (null until it has started serving), as Ctrl-C would deliver it.
 */
final class BackgroundServe {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private final AtomicReference<Runnable> stop = new AtomicReference<>();
  private final CompletableFuture<Integer> exitCode;

  BackgroundServe(String... args) {
    CommandLine.IFactory factory =
        new CommandLine.IFactory() {
          @Override
          public <K> K create(Class<K> type) throws Exception {
            return type == ServeCommand.class
                ? type.cast(new ServeCommand(stop::set))
                : CommandLine.defaultFactory().create(type);
          }
        };
    CommandLine commandLine = TetherCommand.newCommandLine(factory);
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    String[] all = new String[args.length + 1];
    all[0] = "serve";
    System.arraycopy(args, 0, all, 1, args.length);
    exitCode = CompletableFuture.supplyAsync(() -> commandLine.execute(all));
  }

  boolean isServing() {
    return stop.get() != null;
  }

  String out() {
    return out.toString();
  }

  String err() {
    return err.toString();
  }

  /** Asks it to stop, as Ctrl-C does; {@link #exitCode()} completes when it has. */
  void stop() {
    stop.get().run();
  }

  CompletableFuture<Integer> exitCode() {
    return exitCode;
  }
}
