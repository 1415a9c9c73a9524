package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.ExecutionMode;
import dev.tether.RawStreamService;
import dev.tether.internal.CallDeadline;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import dev.tether.spi.WireProtocol;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;

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
  private final Admission admission;

  ProtocolHost(
      WireProtocol protocol, ServedProtocols settings, Dispatcher dispatcher, Admission admission) {
    this.protocol = protocol;
    this.settings = settings;
    this.dispatcher = dispatcher;
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
  public Duration handshakeTimeout() {
    return Duration.ofNanos(admission.handshakeTimeoutNanos());
  }

  @Override
  public Duration drawConnectionAge() {
    ConnectionAge age = admission.connectionAge();
    return age.isOn() ? Duration.ofNanos(age.drawAgeNanos()) : Duration.ZERO;
  }

  @Override
  public Duration connectionAgeGrace() {
    return Duration.ofNanos(admission.connectionAge().graceNanos());
  }

  @Override
  public Duration readerIdle() {
    return Duration.ofNanos(admission.readerIdleNanos());
  }

  @Override
  public WireProtocol.TetherService tetherService(String name) {
    ServiceHandler service = dispatcher.service(name);
    return service == null ? null : new TetherCalls(service, settings.ticker());
  }

  /** A Tether service as another protocol calls it, with the call's deadline inherited. */
  private record TetherCalls(ServiceHandler service, Ticker ticker)
      implements WireProtocol.TetherService {
    @Override
    public boolean hasOperation(String operation) {
      return service.hasOperation(operation);
    }

    @Override
    public Object call(String operation, byte[] payload, CallContext context) throws Exception {
      Duration left = context.timeRemaining();
      try (CallDeadline.Scope inherited =
          left == null ? null : CallDeadline.enter(ticker.nanoTime() + left.toNanos(), ticker)) {
        return service.handle(operation, payload, context);
      }
    }
  }

  @Override
  public WireProtocol.TetherStreamService tetherStreamService(String name) {
    RawStreamService service = admission.streams().service(name);
    return service == null ? null : new TetherStreams(service);
  }

  /** A Tether stream service as another protocol opens its streams. */
  private record TetherStreams(RawStreamService service)
      implements WireProtocol.TetherStreamService {
    @Override
    public boolean hasOperation(String operation) {
      return !(service instanceof TypedStreamService typed) || typed.hasOperation(operation);
    }

    @Override
    public Flow.Publisher<byte[]> open(
        String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext context)
        throws Exception {
      return service.open(operation, request, inbound, context);
    }
  }

  @Override
  public Set<String> tetherServiceNames() {
    Set<String> names = new TreeSet<>(dispatcher.serviceNames());
    names.addAll(admission.streams().serviceNames());
    return names;
  }

  @Override
  public WireProtocol.HostedConnection admit(Channel channel) {
    Executor executor = dispatcher.protocolExecutor(channel.eventLoop(), settings.scheduler());
    ProtocolConnection connection =
        new ProtocolConnection(
            channel,
            protocol.name(),
            executor,
            dispatcher.lazyProtocolExecutor(channel.eventLoop(), settings.scheduler(), executor),
            dispatcher.oversight(),
            admission);
    admission.admit(connection);
    return connection;
  }
}
