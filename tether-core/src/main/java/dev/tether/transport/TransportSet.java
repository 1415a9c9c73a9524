package dev.tether.transport;

import dev.tether.spi.Scheduler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The transports one runtime (client or server) can use, with the event loops they run on. Owns
 * those loops: {@link #shutdown()} frees them. ssl is present only when a TLS context is given.
 */
public final class TransportSet {
  private final IoFlavor flavor;
  private final EventLoopGroup ioGroup;
  private final Map<String, Transport> byName = new LinkedHashMap<>();
  private final Scheduler timers;

  /** A set whose connects keep time with its own event loops' timers. */
  public TransportSet(
      String name, int threads, boolean forceNio, SslContext clientTls, SslContext serverTls) {
    this(name, threads, forceNio, clientTls, serverTls, null);
  }

  /**
   * @param threads event-loop threads; 0 means Netty's default (two per core)
   * @param name thread-name prefix, e.g. "tether-client"
   * @param timers the runtime's scheduler, which bounds connects; null: the set's own event loops
   */
  public TransportSet(
      String name,
      int threads,
      boolean forceNio,
      SslContext clientTls,
      SslContext serverTls,
      Scheduler timers) {
    this.flavor = IoFlavor.best(forceNio);
    this.ioGroup =
        new MultiThreadIoEventLoopGroup(
            threads, new DefaultThreadFactory(name, true), flavor.ioHandlerFactory());
    this.timers = timers != null ? timers : new EventLoopScheduler(ioGroup);
    add(new TcpTransport(flavor, ioGroup, this.timers));
    if (clientTls != null || serverTls != null) {
      add(new SslTransport(flavor, ioGroup, this.timers, clientTls, serverTls));
    }
    add(new UdpTransport(flavor, ioGroup));
    add(new LocalTransport());
  }

  private void add(Transport t) {
    byName.put(t.name(), t);
  }

  /** The transport of that name, or null when unknown or unavailable here (ssl without TLS). */
  public Transport find(String name) {
    return byName.get(name);
  }

  /**
   * New ssl connections use {@code next} (a client or server context); open ones go on.
   *
   * @throws IllegalStateException when this set was made without TLS
   */
  public void reloadTls(SslContext next) {
    if (!(find("ssl") instanceof SslTransport ssl)) {
      throw new IllegalStateException("TLS was not configured, so there is nothing to reload");
    }
    ssl.reload(next);
  }

  public IoFlavor flavor() {
    return flavor;
  }

  /** The scheduler that bounds connects: the one given, or one over this set's event loops. */
  public Scheduler timers() {
    return timers;
  }

  public EventLoopGroup ioGroup() {
    return ioGroup;
  }

  /** Stops the event loops; the returned future completes when their threads have ended. */
  public Future<?> shutdown() {
    return ioGroup.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
  }
}
