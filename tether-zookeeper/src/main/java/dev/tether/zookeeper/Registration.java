package dev.tether.zookeeper;

import dev.tether.TetherServer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server's ephemeral nodes, one per service. Curator's {@link PersistentNode} recreates each
 * node after a session expiry; {@link #withdraw()} (run when the server's graceful shutdown starts,
 * or by the registry's close) deletes them. Withdrawing twice does nothing.
 */
public final class Registration implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Registration.class);

  private final TetherServer server;
  private final List<PersistentNode> nodes;
  private final AtomicBoolean withdrawn = new AtomicBoolean();

  private Registration(TetherServer server, List<PersistentNode> nodes) {
    this.server = server;
    this.nodes = nodes;
  }

  /** Creates the nodes and waits up to {@code wait} for ZooKeeper to hold them. */
  static Registration create(
      CuratorFramework client,
      ZooKeeperPaths paths,
      TetherServer server,
      int weight,
      Duration wait) {
    RegisteredServer record =
        new RegisteredServer(
            server.serverId(),
            server.endpoints().stream().map(Object::toString).toList(),
            server.version(),
            weight);
    byte[] data = record.toJson();
    List<PersistentNode> nodes =
        server.serviceNames().stream()
            .map(
                service ->
                    new PersistentNode(
                        client,
                        CreateMode.EPHEMERAL,
                        false,
                        paths.server(service, server.serverId()),
                        data))
            .toList();
    nodes.forEach(PersistentNode::start);
    Registration r = new Registration(server, nodes);
    r.awaitCreated(wait);
    return r;
  }

  private void awaitCreated(Duration wait) {
    try {
      // The nodes are created in parallel, so waiting for each in turn costs about one wait.
      for (PersistentNode node : nodes) {
        if (!node.waitForInitialCreate(wait.toNanos(), TimeUnit.NANOSECONDS)) {
          log.warn(
              "server {}: {} not registered within {}; it will be once ZooKeeper answers",
              server.serverId(),
              node.getActualPath(),
              wait);
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The server registered. */
  public TetherServer server() {
    return server;
  }

  /** Deletes the server's nodes, so discoveries drop it; the server itself keeps running. */
  public void withdraw() {
    if (!withdrawn.compareAndSet(false, true)) {
      return;
    }
    for (PersistentNode node : nodes) {
      try {
        node.close();
      } catch (IOException | RuntimeException e) {
        // The node is ephemeral: if ZooKeeper is unreachable now, the session's end removes it.
        log.warn("server {}: could not delete its registration now", server.serverId(), e);
      }
    }
  }

  public boolean isWithdrawn() {
    return withdrawn.get();
  }

  /** Same as {@link #withdraw()}. */
  @Override
  public void close() {
    withdraw();
  }
}
