package dev.tether.cli;

/** The entry point of {@code tether.jar}: runs the command line and exits with its code. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(TetherCommand.newCommandLine().execute(args));
  }
}
