package dev.tether.server;

import dev.tether.CallContext;

/**
 * A registered service as the dispatcher sees it. {@link #handle} returns the response bytes, or a
 * {@code CompletionStage<byte[]>} when the service answers asynchronously.
 */
public interface ServiceHandler {
  /** False when the service certainly has no such operation (OPERATION_NOT_FOUND). */
  boolean hasOperation(String operation);

  Object handle(String operation, byte[] payload, CallContext context) throws Exception;
}
