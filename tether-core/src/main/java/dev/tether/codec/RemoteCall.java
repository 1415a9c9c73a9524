package dev.tether.codec;

import java.util.concurrent.CompletableFuture;

/** What a typed stub calls to send one encoded request; a proxy provides it. */
@FunctionalInterface
public interface RemoteCall {
  CompletableFuture<byte[]> send(String operation, byte[] body, boolean idempotent);
}
