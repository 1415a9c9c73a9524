package dev.tether.spring;

import dev.tether.TetherServer;
import java.time.Duration;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the server once the context is refreshed and drains it when the context closes: no new
 * calls, accepted ones finish, clients get GOAWAY, for at most Spring's shutdown-phase timeout. Its
 * phase stops it before ordinary lifecycle beans and before the runtime is closed.
 */
public final class TetherServerLifecycle implements SmartLifecycle {
  /** Where Boot's own web servers drain: the last phases to start, the first to stop. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

  private final TetherServer server;
  private final Duration grace;

  /** Written by Spring's refresh and close, which happen one after the other. */
  private volatile boolean running;

  TetherServerLifecycle(TetherServer server, Duration grace) {
    this.server = server;
    this.grace = grace;
  }

  @Override
  public void start() {
    server.start();
    running = true;
  }

  /** Drains on a thread of its own so that Spring stops the other beans of this phase meanwhile. */
  @Override
  public void stop(Runnable callback) {
    Thread drain =
        new Thread(
            () -> {
              try {
                server.shutdownGracefully(grace);
              } finally {
                running = false;
                callback.run();
              }
            },
            "tether-drain-" + server.serverId());
    drain.setDaemon(true);
    drain.start();
  }

  @Override
  public void stop() {
    server.shutdownGracefully(grace);
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** The longest a drain may take: {@code spring.lifecycle.timeout-per-shutdown-phase}. */
  public Duration grace() {
    return grace;
  }
}
