package dev.tether.cli;

/**
 * Tells {@code tether serve} when to stop. The real one is the JVM's shutdown (Ctrl-C, SIGTERM);
 * tests pass their own so that they can stop a server without ending the JVM.
 */
@FunctionalInterface
public interface StopSignal {

  /**
   * Arranges for {@code stop} to run once when stopping is requested. {@code stop} returns only
   * when the server is down, which is what a shutdown hook must do before the JVM exits.
   */
  void onStopRequested(Runnable stop);

  /** Stops when the JVM shuts down, through a shutdown hook. */
  static StopSignal jvmShutdown() {
    return stop -> Runtime.getRuntime().addShutdownHook(new Thread(stop, "tether-serve-shutdown"));
  }
}
