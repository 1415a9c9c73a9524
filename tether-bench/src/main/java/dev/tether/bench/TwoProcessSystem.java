package dev.tether.bench;

import java.util.OptionalLong;

/**
 * A client in this JVM connected to its system's server in a JVM of its own, taken from a {@link
 * ServerProcessPool} and outliving the run: closing this closes the client only.
 */
final class TwoProcessSystem implements BenchSystem {

  private final ServerProcessPool pool;
  private final SystemSpec spec;
  private final BenchClient client;

  /** Non-null once {@link #start()} has found the server. */
  private ServerProcess server;

  TwoProcessSystem(ServerProcessPool pool, SystemSpec spec) {
    this.pool = pool;
    this.spec = spec;
    this.client = spec.client().get();
  }

  @Override
  public void start() throws Exception {
    server = pool.serverOf(spec);
    client.connect(server.port());
  }

  @Override
  public void call(byte[] payload, ResponseHandler handler) {
    client.call(payload, handler);
  }

  @Override
  public OptionalLong serverCpuNanos() {
    return server == null ? OptionalLong.empty() : OptionalLong.of(server.cpuNanos());
  }

  @Override
  public void close() {
    client.close();
  }
}
