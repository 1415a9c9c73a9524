package dev.tether.bench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One server process per system, started at its first run and kept for the rest of the benchmark,
 * so that its JIT is as warm in later runs as an in-JVM server's; each run still opens a fresh
 * client connection to it.
 */
final class ServerProcessPool implements AutoCloseable {

  private final Map<String, ServerProcess> processes = new LinkedHashMap<>();

  /** The running server process of {@code spec}, started now when there is none. */
  ServerProcess serverOf(SystemSpec spec) throws IOException, InterruptedException {
    ServerProcess process = processes.get(spec.name());
    if (process == null) {
      process = ServerProcess.start(spec);
      processes.put(spec.name(), process);
    }
    return process;
  }

  /** Stops every server process. */
  @Override
  public void close() {
    processes.values().forEach(ServerProcess::close);
    processes.clear();
  }
}
