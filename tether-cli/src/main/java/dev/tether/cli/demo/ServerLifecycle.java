package dev.tether.cli.demo;

import dev.tether.cli.kv.DemoServer;

/**
 * Hears when the demo cluster starts a server and when it kills one; the ZooKeeper demo registers
 * them.
 */
interface ServerLifecycle {
  /** Does nothing: the demo on a static proxy string. */
  ServerLifecycle NONE =
      new ServerLifecycle() {
        @Override
        public void started(DemoServer server) {}

        @Override
        public void closedAbruptly(DemoServer server) {}
      };

  /** A server (a first start or a restart) is serving. */
  void started(DemoServer server);

  /**
   * A server was closed abruptly, without the graceful shutdown that withdraws its registration.
   */
  void closedAbruptly(DemoServer server);
}
