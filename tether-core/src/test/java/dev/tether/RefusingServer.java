package dev.tether;

import java.util.concurrent.RejectedExecutionException;

/**
 * A server on loopback whose executor takes no work: every request is answered REFUSED and never
 * runs, so a client may retry it elsewhere, idempotent or not. For tests of what retries look like.
 */
public final class RefusingServer {
  private RefusingServer() {}

  /** Started, serving {@code svc} (echo) on an ephemeral loopback port. */
  public static TetherServer start() {
    return TetherServer.builder()
        .endpoints("tcp -h 127.0.0.1 -p 0")
        .executor(
            task -> {
              throw new RejectedExecutionException("no thread free");
            })
        .service("svc", (op, payload, ctx) -> payload)
        .build()
        .start();
  }
}
