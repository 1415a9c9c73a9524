package dev.tether.spi;

import dev.tether.ExecutionMode;
import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A protocol a server speaks on its stream endpoints beside Tether's own, chosen per connection by
 * the first bytes the client sends (its preface). Registered with {@code
 * TetherServer.Builder.wireProtocol}; one instance serves every connection of the server, from any
 * event loop, so it must be thread-safe.
 */
public interface WireProtocol {
  /**
   * The bytes a client of this protocol sends first; must differ from Tether's preface ({@code
   * "TETH"}) within its first four bytes. The server decides as soon as the bytes read so far fit
   * one protocol only, so the protocol's own handlers must still check the rest.
   */
  byte[] preface();

  /**
   * Takes over a connection whose first bytes matched {@link #preface()}: adds this protocol's
   * handlers to the channel's pipeline. Called once on the channel's event loop; the bytes read so
   * far are fired into the pipeline right after this returns, and the channel reads on.
   */
  void serve(Channel channel, Host server);

  /**
   * The server began its graceful drain ({@code shutdownGracefully}): stop taking new work on this
   * protocol's connections, let what runs finish, close them. The server waits for the returned
   * future (or its grace deadline) before it closes whatever is left. By default the connections
   * are left to close with the server.
   */
  default CompletableFuture<Void> drain() {
    return CompletableFuture.completedFuture(null);
  }

  /** What the server offers the connections of another protocol; thread-safe. */
  interface Host {
    /** Where the server runs service code: its calls of this protocol should run there too. */
    ExecutionMode executionMode();

    /**
     * The executor service code runs on in every mode but {@link ExecutionMode#DIRECT} (then null:
     * the connection's event loop runs it).
     */
    Executor executor();

    /** The most requests one connection may have running at once. */
    int maxConcurrentRequests();

    /** The server's clock: deadlines are read from it. */
    Ticker ticker();

    /** The server's scheduler: deadlines are kept by it. */
    Scheduler scheduler();
  }
}
