package dev.tether.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory system that answers every call on one executor thread, in one of a few scripted
 * ways: the client does it all, its server only reports a port.
 */
final class FakeSystem implements BenchClient {

  enum Behaviour {
    /** Answers with a copy of the request. */
    ECHO,
    /** Answers with a response one byte short. */
    TRUNCATE,
    /** Fails every call. */
    FAIL,
    /** Never answers. */
    SILENT,
    /** Cannot start. */
    BROKEN
  }

  private final Behaviour behaviour;
  private final ExecutorService executor = Executors.newSingleThreadExecutor();

  FakeSystem(Behaviour behaviour) {
    this.behaviour = behaviour;
  }

  static SystemSpec spec(String family, String setting, Behaviour behaviour) {
    return new SystemSpec(family, setting, NoServer::new, () -> new FakeSystem(behaviour));
  }

  @Override
  public void connect(int port) {
    if (behaviour == Behaviour.BROKEN) {
      throw new IllegalStateException("scripted start failure");
    }
  }

  @Override
  public void call(byte[] payload, ResponseHandler handler) {
    switch (behaviour) {
      case ECHO -> executor.execute(() -> handler.onResponse(payload.clone()));
      case TRUNCATE -> executor.execute(() -> handler.onResponse(new byte[payload.length - 1]));
      case FAIL ->
          executor.execute(() -> handler.onFailure(new IllegalStateException("scripted failure")));
      case SILENT, BROKEN -> {}
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The server of a fake system: there is nothing to serve. */
  private static final class NoServer implements BenchServer {
    @Override
    public int start() {
      return 1;
    }

    @Override
    public void close() {}
  }
}
