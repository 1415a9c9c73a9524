package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.PermissionDeniedException;
import dev.tether.ServerInterceptor;
import dev.tether.protocol.Status;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's interceptors, in the order added, guarding calls and stream openings alike: the
 * first that throws refuses the request. One that fails otherwise than with {@link
 * PermissionDeniedException} refuses too, since running a service whose guard broke would be the
 * one wrong answer.
 */
public final class Interceptors {
  private static final Logger log = LoggerFactory.getLogger(Interceptors.class);

  public static final Interceptors NONE = new Interceptors(List.of());

  private final List<ServerInterceptor> chain;

  public Interceptors(List<ServerInterceptor> chain) {
    this.chain = List.copyOf(chain);
  }

  public boolean isEmpty() {
    return chain.isEmpty();
  }

  /** Null when every interceptor let {@code request} through; else how to answer it. */
  Refusal check(CallContext request) {
    for (ServerInterceptor interceptor : chain) {
      try {
        interceptor.intercept(request);
      } catch (PermissionDeniedException denied) {
        return new Refusal(Status.PERMISSION_DENIED, denied);
      } catch (Throwable broken) {
        log.warn(
            "interceptor {} failed on {}.{}; the request is refused",
            interceptor,
            request.service(),
            request.operation(),
            broken);
        return new Refusal(Status.INTERNAL, broken);
      }
    }
    return null;
  }

  /** The status a refused request is answered with, and why. */
  record Refusal(Status status, Throwable why) {
    String message() {
      return why.getMessage() == null ? why.getClass().getName() : why.getMessage();
    }
  }
}
