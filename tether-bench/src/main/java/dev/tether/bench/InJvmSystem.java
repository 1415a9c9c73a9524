package dev.tether.bench;

/**
 * A server and its client in this JVM: the one-JVM mode, where client and server threads share one
 * process (and its JIT, heap and CPU accounting).
 */
final class InJvmSystem implements BenchSystem {

  private final BenchServer server;
  private final BenchClient client;

  InJvmSystem(BenchServer server, BenchClient client) {
    this.server = server;
    this.client = client;
  }

  @Override
  public void start() throws Exception {
    client.connect(server.start());
  }

  @Override
  public void call(byte[] payload, ResponseHandler handler) {
    client.call(payload, handler);
  }

  @Override
  public void close() {
    client.close();
    server.close();
  }
}
