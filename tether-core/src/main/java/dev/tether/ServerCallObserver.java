package dev.tether;

/**
 * Sees each execution on a server from its start to its answer, which a {@link ServerInterceptor}
 * cannot: registered with {@link TetherServer.Builder#callObserver}, told when a routed request
 * starts to run (before the interceptors, on the thread the service runs on) and, through the
 * {@link Execution} it returns, once when its outcome is decided. A stream's opening is an
 * execution too: it ends when the stream service returned its publisher (OK), threw, or an
 * interceptor refused it; a RESUME is not one. Without an observer a request costs one field read.
 * It must not block; what it throws is logged and ignored.
 */
@FunctionalInterface
public interface ServerCallObserver {

  /** A request starts to run; returns what hears its end, or null to watch nothing more. */
  Execution onExecution(CallContext call);

  /** Hears how one execution ended. */
  @FunctionalInterface
  interface Execution {
    /**
     * The outcome is decided, once, on the thread that decided it: {@code status} is the wire
     * status sent back ({@code "OK"}, {@code "REMOTE_ERROR"}, {@code "PERMISSION_DENIED"}, {@code
     * "INTERNAL"}, {@code "DEADLINE_EXCEEDED"}; {@code "OK"} for a oneway request that ran), {@code
     * failure} what the service or an interceptor threw, else null.
     */
    void onEnd(String status, Throwable failure);

    /**
     * Called on the service's thread just before the interceptors and the service run; what it
     * returns (null for nothing) is closed on that thread as soon as the service method returns,
     * which may be before an asynchronous result completes. Tracing makes its span current here, so
     * calls the service makes are its children.
     */
    default Scope enter() {
      return null;
    }
  }

  /** What {@link Execution#enter()} opened; closed once, on the thread that opened it. */
  @FunctionalInterface
  interface Scope extends AutoCloseable {
    @Override
    void close();
  }
}
