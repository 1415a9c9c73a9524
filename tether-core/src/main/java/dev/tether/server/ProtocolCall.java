package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.ServerCallObserver;
import dev.tether.spi.WireProtocol;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One call of another protocol under its server's oversight: the call observer hears it start on
 * the service's thread and end on the connection's loop, and the interceptors guard it, through the
 * same pieces as Tether's calls ({@link ObservedExecution}, {@link Interceptors}).
 */
final class ProtocolCall implements WireProtocol.HostedCall {
  /** Stands in the execution slot once the call ended, so a late start is not watched. */
  private static final ServerCallObserver.Execution ENDED = (status, failure) -> {};

  private final ProtocolConnection connection;
  private final CallContext call;
  private final Oversight oversight;

  /**
   * The observer's execution: set on the service's thread at the start, taken on the loop at the
   * end; whichever comes second sees the other's mark.
   */
  private final AtomicReference<ServerCallObserver.Execution> execution = new AtomicReference<>();

  /** On the loop only. */
  private boolean ended;

  ProtocolCall(ProtocolConnection connection, CallContext call, Oversight oversight) {
    this.connection = connection;
    this.call = call;
    this.oversight = oversight;
  }

  @Override
  public Throwable intercept() {
    ServerCallObserver.Execution watched = ObservedExecution.watch(oversight.observer(), call);
    if (watched != null && !execution.compareAndSet(null, watched)) {
      // The call ended (cancelled) before its service started: nothing ran.
      ObservedExecution.end(watched, "CANCELLED", null);
    }
    if (oversight.interceptors().isEmpty()) {
      return null;
    }
    try (ServerCallObserver.Scope entered = enter()) {
      Interceptors.Refusal refusal = oversight.interceptors().check(call);
      return refusal == null ? null : refusal.why();
    }
  }

  @Override
  public ServerCallObserver.Scope enter() {
    ServerCallObserver.Execution watched = execution.get();
    return watched == null || watched == ENDED ? null : ObservedExecution.enter(watched);
  }

  @Override
  public void ended(String status, Throwable failure) {
    if (ended) {
      return;
    }
    ended = true;
    connection.callEnded();
    ServerCallObserver.Execution watched = execution.getAndSet(ENDED);
    if (watched != null) {
      ObservedExecution.end(watched, status, failure);
    }
  }
}
