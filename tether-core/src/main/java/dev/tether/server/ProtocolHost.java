package dev.tether.server;

import dev.tether.ExecutionMode;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.spi.WireProtocol;
import io.netty.channel.Channel;
import java.util.concurrent.Executor;

/**
 * What a server offers the connections of one other protocol: its settings, its execution mode's
 * executor per connection, its oversight of calls, and its count of connections, which it admits
 * through {@code admission} (the server's runtime) as it admits Tether's.
 */
final class ProtocolHost implements WireProtocol.Host {
  /** Counts a connection in, or closes it. */
  interface Admission extends ConnectionHost {
    void admit(ProtocolConnection connection);
  }

  private final WireProtocol protocol;
  private final ServedProtocols settings;
  private final Dispatcher dispatcher;
  private final Oversight oversight;
  private final Admission admission;

  ProtocolHost(
      WireProtocol protocol, ServedProtocols settings, Dispatcher dispatcher, Admission admission) {
    this.protocol = protocol;
    this.settings = settings;
    this.dispatcher = dispatcher;
    this.oversight = dispatcher.oversight();
    this.admission = admission;
  }

  WireProtocol protocol() {
    return protocol;
  }

  @Override
  public ExecutionMode executionMode() {
    return settings.executionMode();
  }

  @Override
  public Executor executor() {
    return settings.executor();
  }

  @Override
  public int maxConcurrentRequests() {
    return settings.maxConcurrentRequests();
  }

  @Override
  public Ticker ticker() {
    return settings.ticker();
  }

  @Override
  public Scheduler scheduler() {
    return settings.scheduler();
  }

  @Override
  public WireProtocol.HostedConnection admit(Channel channel) {
    ProtocolConnection connection =
        new ProtocolConnection(
            channel,
            protocol.name(),
            dispatcher.protocolExecutor(channel.eventLoop(), settings.scheduler()),
            oversight,
            admission);
    admission.admit(connection);
    return connection;
  }
}
