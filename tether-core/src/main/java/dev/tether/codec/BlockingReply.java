package dev.tether.codec;

/**
 * A reply a caller can wait for without the allocation CompletableFuture.get() makes per wait.
 * Rethrows Tether's exceptions as they are.
 */
public interface BlockingReply {
  byte[] awaitReply();
}
