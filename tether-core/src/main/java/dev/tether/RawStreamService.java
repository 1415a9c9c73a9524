package dev.tether;

import java.util.concurrent.Flow;

/**
 * An untyped stream service: for each stream a client opens it returns the cold publisher of the
 * items to send. {@code inbound} publishes what the client sends on a bidirectional stream (it
 * completes at once for a server stream). A publisher's error, or a thrown exception, reaches the
 * client as {@link RemoteException}; the client's cancel cancels the subscription.
 */
@FunctionalInterface
public interface RawStreamService {
  Flow.Publisher<byte[]> open(
      String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext context)
      throws Exception;
}
