package dev.tether.server;

import dev.tether.ExecutionMode;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.spi.WireProtocol;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The protocols a server speaks on its stream endpoints beside Tether's own, and what it offers
 * their connections. With none, connections go straight to Tether's pipeline and nothing is
 * sniffed.
 *
 * @param protocols in registration order; the first whose preface fits the first bytes wins
 * @param executor null in DIRECT mode
 */
public record ServedProtocols(
    List<WireProtocol> protocols,
    ExecutionMode executionMode,
    Executor executor,
    int maxConcurrentRequests,
    Ticker ticker,
    Scheduler scheduler) {

  public ServedProtocols {
    protocols = List.copyOf(protocols);
  }

  /** Every protocol's drain; completes when all have. */
  CompletableFuture<Void> drain() {
    return CompletableFuture.allOf(
        protocols.stream().map(WireProtocol::drain).toArray(CompletableFuture[]::new));
  }

  /** Tether's protocol only. */
  public static ServedProtocols none() {
    return new ServedProtocols(List.of(), ExecutionMode.DIRECT, null, 0, null, null);
  }
}
