package dev.tether;

import dev.tether.internal.EventBus;
import dev.tether.protocol.Welcome;
import dev.tether.server.ConnectionAge;
import dev.tether.server.Dispatcher;
import dev.tether.server.ServedProtocols;
import dev.tether.server.ServerRuntime;
import dev.tether.server.ServiceThreads;
import dev.tether.server.StreamRegistry;
import dev.tether.spi.Scheduler;
import dev.tether.stream.StreamThreads;
import dev.tether.transport.EventLoopScheduler;
import dev.tether.transport.TransportSet;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/**
 * Puts a server's parts together from its settings: the event loops and transports, the timers'
 * scheduler, the executor and dispatch, the stream registry, and the runtime that owns them. The
 * server's face ({@link TetherServer}) keeps only what it answers itself.
 */
final class ServerAssembly {
  private ServerAssembly() {}

  /**
   * An unstarted runtime for {@code s}, emitting on {@code events}, greeting with {@code welcome}.
   */
  static ServerRuntime runtime(ServerSettings s, EventBus events, Supplier<Welcome> welcome) {
    ServerProperties p = s.properties();
    ExecutionMode mode = p.executionMode();
    ExecutorService owned = s.executor() != null ? null : ServiceThreads.ownedFor(mode);
    Executor executor = s.executor() != null ? s.executor() : owned;
    TransportSet transports =
        new TransportSet(
            "tether-server",
            s.threads(),
            p.forceNio(),
            null,
            s.tls() == null ? null : s.tlsContext());
    Scheduler scheduler =
        s.scheduler() != null ? s.scheduler() : new EventLoopScheduler(transports.ioGroup());
    ServerRuntime.Timing timing =
        new ServerRuntime.Timing(
            s.ticker(),
            scheduler,
            p.readerIdle(),
            p.handshakeTimeout(),
            ConnectionAge.of(p.maxConnectionAge(), p.maxConnectionAgeGrace(), s.random()));
    Dispatcher dispatcher =
        new Dispatcher(
            s.services(),
            mode,
            executor,
            s.ticker(),
            s.interceptors(),
            s.callObserver(),
            s.maxConcurrentRequests());
    return new ServerRuntime(
        s.endpoints(),
        transports,
        dispatcher,
        welcome,
        s.maxFrameSize(),
        p.maxConnections(),
        timing,
        owned,
        events,
        p.compression(),
        StreamRegistry.of(
            s.streamServices(),
            p.streams(),
            StreamThreads.shared(),
            scheduler,
            s.ticker(),
            events,
            dispatcher.oversight(),
            p.maxStreamsPerConnection(),
            p.maxDetachedStreams()),
        new ServedProtocols(
            s.wireProtocols(), mode, executor, s.maxConcurrentRequests(), s.ticker(), scheduler));
  }
}
