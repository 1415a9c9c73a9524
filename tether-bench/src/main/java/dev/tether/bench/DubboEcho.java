package dev.tether.bench;

import java.util.concurrent.CompletableFuture;

/**
 * The echo service as a Dubbo user declares it: asynchronous methods (Dubbo's own async style for
 * interfaces), one with bytes and one with the typed message. Public because Dubbo generates its
 * proxy classes against it.
 */
public interface DubboEcho {

  /** Answers with {@code payload}. */
  CompletableFuture<byte[]> echo(byte[] payload);

  /** Answers with {@code message}. */
  CompletableFuture<DubboMessage> echoMessage(DubboMessage message);
}
