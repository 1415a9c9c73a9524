package dev.tether.zookeeper;

import dev.tether.TetherServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tests' servers on loopback, each serving "kv": {@code whoami} answers the server's name,
 * {@code increment} (not idempotent) records its payload so a test can prove none ran twice, and
 * {@code hold} blocks until {@link #release()} so a test can keep a drain open.
 */
final class KvServers implements AutoCloseable {
  static final String SERVICE = "kv";

  private final List<TetherServer> servers = new ArrayList<>();
  private final Map<String, AtomicInteger> servedBy = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> executionsOf = new ConcurrentHashMap<>();
  private final CountDownLatch released = new CountDownLatch(1);
  final CountDownLatch holding = new CountDownLatch(1);

  TetherServer start(String name) {
    return start(name, "1.0.0");
  }

  TetherServer start(String name, String version) {
    TetherServer server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .version(version)
            .service(SERVICE, (operation, payload, context) -> handle(name, operation, payload))
            .build()
            .start();
    synchronized (servers) {
      servers.add(server);
    }
    return server;
  }

  private byte[] handle(String name, String operation, byte[] payload) throws InterruptedException {
    servedBy.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
    switch (operation) {
      case "increment" ->
          executionsOf
              .computeIfAbsent(
                  new String(payload, StandardCharsets.UTF_8), k -> new AtomicInteger())
              .incrementAndGet();
      case "hold" -> {
        holding.countDown();
        released.await(30, TimeUnit.SECONDS);
      }
      default -> {}
    }
    return name.getBytes(StandardCharsets.UTF_8);
  }

  /** How many calls the server of this name ran. */
  int served(String name) {
    AtomicInteger n = servedBy.get(name);
    return n == null ? 0 : n.get();
  }

  /** How many times each increment payload ran, across every server. */
  Map<String, AtomicInteger> executions() {
    return executionsOf;
  }

  void release() {
    released.countDown();
  }

  @Override
  public void close() {
    release();
    synchronized (servers) {
      servers.forEach(TetherServer::close);
    }
  }
}
