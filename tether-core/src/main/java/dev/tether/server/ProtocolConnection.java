package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.observe.TetherEvent;
import dev.tether.spi.WireProtocol;
import io.netty.channel.Channel;
import java.util.concurrent.Executor;

/**
 * One connection of another protocol (gRPC) as its server counts it: its calls in flight and
 * served, read by status snapshots as Tether's connections are, the executor its service code runs
 * on, and its events. The counts belong to the connection's event loop.
 */
final class ProtocolConnection implements WireProtocol.HostedConnection {
  private final Channel channel;
  private final String protocol;
  private final Executor executor;
  private final Executor lazyExecutor;
  private final Oversight oversight;
  private final ConnectionHost server;

  // On the loop only.

  /** The protocol's way to turn the connection away; null: close it. */
  private Runnable refuse;

  private int inFlight;
  private long served;

  ProtocolConnection(
      Channel channel,
      String protocol,
      Executor executor,
      Executor lazyExecutor,
      Oversight oversight,
      ConnectionHost server) {
    this.channel = channel;
    this.protocol = protocol;
    this.executor = executor;
    this.lazyExecutor = lazyExecutor;
    this.oversight = oversight;
    this.server = server;
  }

  @Override
  public Executor executor() {
    return executor;
  }

  @Override
  public Executor lazyExecutor() {
    return lazyExecutor;
  }

  @Override
  public WireProtocol.HostedCall callStarted(CallContext call) {
    inFlight++;
    return new ProtocolCall(this, call, oversight);
  }

  /** One of its calls ended; on the loop. */
  void callEnded() {
    inFlight--;
    served++;
  }

  @Override
  public void emit(TetherEvent.Kind kind, String detail, Throwable cause) {
    server.emit(kind, channel, protocol + ": " + detail, cause);
  }

  @Override
  public void onRefused(Runnable refuse) {
    this.refuse = refuse;
  }

  /** The server turned the connection away (any thread): as the protocol said, or closed. */
  void refuse() {
    channel
        .eventLoop()
        .execute(
            () -> {
              if (refuse != null && channel.isActive()) {
                refuse.run();
              } else {
                channel.close();
              }
            });
  }

  Channel channel() {
    return channel;
  }

  String protocol() {
    return protocol;
  }

  /** Calls running now; on the loop. */
  int inFlight() {
    return inFlight;
  }

  /** Calls ended on this connection; on the loop. */
  long served() {
    return served;
  }
}
