package dev.tether.grpc;

import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.spi.WireProtocol;
import io.netty.channel.ChannelHandlerContext;
import java.util.function.IntSupplier;

/**
 * The server's reader idle ({@code tether.server.readerIdle}) on one gRPC connection: a connection
 * that has read nothing (a PING counts) and run no call for that long is idle, and {@code onIdle}
 * runs once to end it gracefully. gRPC clients do not ping an idle connection unless the server
 * permits it, so a call in flight counts as life, and the quiet time runs from the later of the
 * last read and the last call's end. One check is scheduled at a time; state on the event loop.
 */
final class IdleWatch {
  private final ChannelHandlerContext ctx;
  private final Ticker ticker;
  private final Scheduler scheduler;
  private final long limitNanos;
  private final IntSupplier callsRunning;
  private final Runnable onIdle;

  /** When the connection last read bytes or ended a call, on the server's ticker. */
  private long lastActiveNanos;

  /** Non-null while a check is scheduled. */
  private Scheduler.Cancellable check;

  private IdleWatch(
      ChannelHandlerContext ctx,
      WireProtocol.Host host,
      long limitNanos,
      IntSupplier callsRunning,
      Runnable onIdle) {
    this.ctx = ctx;
    this.ticker = host.ticker();
    this.scheduler = host.scheduler();
    this.limitNanos = limitNanos;
    this.callsRunning = callsRunning;
    this.onIdle = onIdle;
  }

  /**
   * Watches the connection of {@code ctx} from now, if the server has a reader idle; null when it
   * has none.
   */
  static IdleWatch start(
      ChannelHandlerContext ctx,
      WireProtocol.Host host,
      IntSupplier callsRunning,
      Runnable onIdle) {
    long limit = host.readerIdle().toNanos();
    if (limit <= 0) {
      return null;
    }
    IdleWatch watch = new IdleWatch(ctx, host, limit, callsRunning, onIdle);
    watch.active();
    watch.arm(limit);
    ctx.channel().closeFuture().addListener(closed -> watch.stop());
    return watch;
  }

  /** The connection read something, or a call ended: quiet time counts from now. */
  void active() {
    lastActiveNanos = ticker.nanoTime();
  }

  private void arm(long delayNanos) {
    check = scheduler.schedule(() -> ctx.executor().execute(this::due), delayNanos);
  }

  private void due() {
    check = null;
    if (!ctx.channel().isActive()) {
      return;
    }
    if (callsRunning.getAsInt() > 0) {
      arm(limitNanos);
      return;
    }
    long quiet = ticker.nanoTime() - lastActiveNanos;
    if (quiet < limitNanos) {
      arm(limitNanos - quiet);
    } else {
      onIdle.run();
    }
  }

  private void stop() {
    ctx.executor()
        .execute(
            () -> {
              if (check != null) {
                check.cancel();
                check = null;
              }
            });
  }
}
