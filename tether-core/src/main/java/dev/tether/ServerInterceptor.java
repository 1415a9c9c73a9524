package dev.tether;

/**
 * Sees every request (service, operation, metadata, the caller's verified identity and address)
 * after its frame has fully arrived and before its service runs, on the thread the service would
 * run on. Throwing {@link PermissionDeniedException} refuses it: the client gets that exception
 * with the message, and the service never runs. Any other exception refuses it too, reported to the
 * client as a server failure. Pings reach no service and skip interceptors.
 */
@FunctionalInterface
public interface ServerInterceptor {
  /** Returns normally to let the request run; throws to refuse it. */
  void intercept(CallContext call);
}
