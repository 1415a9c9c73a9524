package dev.tether.testkit;

import dev.tether.TetherServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.BiConsumer;

/**
 * One node of an {@link InProcessCluster}: a server and the fault proxy in front of it. The proxy
 * lives as long as the node; servers come and go behind it. Life changes are serialized on this
 * object's monitor; {@link #isUp()} and {@link #server()} read without it.
 */
final class ClusterNode {
  private static final String LOOPBACK = "127.0.0.1";

  /** The life of a node. */
  enum State {
    /** The server runs and the proxy accepts connects. */
    UP,
    /** Stopped or killed: the server is closed and the proxy refuses connects. */
    DOWN,
    /** The cluster closed: server and proxy are closed for good; terminal. */
    CLOSED
  }

  private final int index;
  private final BiConsumer<Integer, TetherServer.Builder> configure;
  private final FaultProxy faultProxy;

  /** The running server while UP; the last one that ran otherwise. */
  private volatile TetherServer server;

  private volatile State state = State.UP;

  private ClusterNode(
      int index,
      BiConsumer<Integer, TetherServer.Builder> configure,
      TetherServer server,
      FaultProxy faultProxy) {
    this.index = index;
    this.configure = configure;
    this.server = server;
    this.faultProxy = faultProxy;
  }

  /** Starts node {@code index}: a server on a free port, then a proxy in front of it. */
  static ClusterNode start(int index, BiConsumer<Integer, TetherServer.Builder> configure) {
    TetherServer server = startServer(index, configure, 0);
    try {
      return new ClusterNode(index, configure, server, FaultProxy.start(serverAddress(server)));
    } catch (Throwable e) {
      server.close();
      throw e;
    }
  }

  TetherServer server() {
    return server;
  }

  FaultProxy faultProxy() {
    return faultProxy;
  }

  boolean isUp() {
    return state == State.UP;
  }

  /** Refuses connects first, so that no client reaches a server that only answers REFUSED. */
  synchronized void stop(Duration grace) {
    if (transitionTo(State.DOWN)) {
      faultProxy.stop();
      server.shutdownGracefully(grace);
    }
  }

  /**
   * Resets connections before closing the server, so clients see RST rather than an orderly FIN.
   */
  synchronized void kill() {
    if (transitionTo(State.DOWN)) {
      faultProxy.stop();
      faultProxy.resetAll();
      server.close();
    }
  }

  synchronized void restart() {
    if (state == State.CLOSED) {
      throw new IllegalStateException("node " + index + " is closed");
    }
    kill();
    TetherServer next = startServerPreferring(serverAddress(server).getPort());
    try {
      faultProxy.retarget(serverAddress(next));
      faultProxy.restart();
    } catch (Throwable e) {
      next.close();
      throw e;
    }
    server = next;
    transitionTo(State.UP);
  }

  synchronized void close() {
    if (transitionTo(State.CLOSED)) {
      try {
        server.close();
      } finally {
        faultProxy.close();
      }
    }
  }

  @Override
  public String toString() {
    return "node " + index + " " + state + " at " + faultProxy.endpoint();
  }

  /** Changes the state unless it is {@code next} already or CLOSED; says whether it changed. */
  private boolean transitionTo(State next) {
    if (state == next || state == State.CLOSED) {
      return false;
    }
    state = next;
    return true;
  }

  /** A server on {@code port}, or on a free port when {@code port} cannot be bound. */
  private TetherServer startServerPreferring(int port) {
    try {
      return startServer(index, configure, port);
    } catch (Exception portTaken) {
      // The transport rethrows the bind failure unchecked: IOException arrives undeclared.
      if (!isBindFailure(portTaken)) {
        throw portTaken;
      }
      try {
        return startServer(index, configure, 0);
      } catch (Throwable e) {
        e.addSuppressed(portTaken);
        throw e;
      }
    }
  }

  private static boolean isBindFailure(Throwable t) {
    for (Throwable cause = t; cause != null; cause = cause.getCause()) {
      if (cause instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  private static TetherServer startServer(
      int index, BiConsumer<Integer, TetherServer.Builder> configure, int port) {
    TetherServer.Builder builder =
        TetherServer.builder().endpoints("tcp -h " + LOOPBACK + " -p " + port);
    configure.accept(index, builder);
    TetherServer server = builder.build();
    try {
      return server.start();
    } catch (Throwable e) {
      // A failed start may leave the server's threads running.
      server.close();
      throw e;
    }
  }

  /** Where the proxy forwards: the endpoint the cluster asked for, which the server binds first. */
  private static InetSocketAddress serverAddress(TetherServer server) {
    return new InetSocketAddress(LOOPBACK, server.endpoints().get(0).port());
  }
}
