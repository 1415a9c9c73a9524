package dev.tether.transport;

import dev.tether.spi.Scheduler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import java.net.SocketAddress;
import java.time.Duration;

/**
 * Bounds a transport connect on the runtime's clock rather than Netty's own timer ({@code
 * CONNECT_TIMEOUT_MILLIS}), so a fake clock decides when a connect gives up just as it decides
 * every other timeout. A connect still pending at the limit fails with Netty's {@link
 * ConnectTimeoutException}, as Netty's own timeout would, and its channel is closed.
 */
final class ConnectDeadline {
  private ConnectDeadline() {}

  /**
   * The outcome of {@code connecting}, failed with a timeout once {@code limit} passes on {@code
   * timers} without one. The decision runs on the channel's event loop, which owns the connect; a
   * connect that finishes first cancels the timer.
   */
  static ChannelFuture bound(
      ChannelFuture connecting, SocketAddress remote, Duration limit, Scheduler timers) {
    if (connecting.isDone()) {
      return connecting;
    }
    Channel channel = connecting.channel();
    ChannelPromise outcome = channel.newPromise();
    Scheduler.Cancellable timer =
        timers.schedule(
            () ->
                channel
                    .eventLoop()
                    .execute(
                        () -> {
                          if (outcome.tryFailure(
                              new ConnectTimeoutException(
                                  "connection timed out after "
                                      + limit.toMillis()
                                      + " ms: "
                                      + remote))) {
                            channel.close();
                          }
                        }),
            limit.toNanos());
    connecting.addListener(
        done -> {
          timer.cancel();
          if (done.isSuccess()) {
            outcome.trySuccess();
          } else {
            outcome.tryFailure(done.cause());
          }
        });
    return outcome;
  }
}
