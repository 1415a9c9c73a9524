package dev.tether;

import dev.tether.internal.TetherProperties;
import dev.tether.observe.TetherListener;
import dev.tether.spi.Codec;
import dev.tether.spi.Scheduler;
import dev.tether.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.Random;

/**
 * The settings a client runtime ({@link Tether.Builder}) and a server ({@link
 * TetherServer.Builder}) both take, each setter returning the builder it was called on. Only those
 * two builders extend it.
 *
 * @param <B> the concrete builder
 */
public abstract class RuntimeBuilder<B extends RuntimeBuilder<B>> {
  final TetherProperties properties = new TetherProperties();
  final List<TetherListener> listeners = new ArrayList<>();
  Codec codec = Tether.standardCodec();
  Ticker ticker = Ticker.system();
  Random random = new Random();

  /** Null until set: the runtime then keeps time on its own event loops. */
  Scheduler scheduler;

  /** Null without TLS. */
  TlsConfig tls;

  /** Null unless watchTls was called. */
  Duration tlsWatch;

  RuntimeBuilder() {}

  /** This builder, as its own type. */
  abstract B self();

  /**
   * {@code tether.*} settings (docs/configuration.md lists every key); these win over {@code
   * -Dtether.*} system properties.
   */
  public B properties(Properties p) {
    properties.putAll(p);
    return self();
  }

  /** One setting, e.g. {@code property("tether.retry.intervals", "0 100")}. */
  public B property(String key, String value) {
    properties.put(key, value);
    return self();
  }

  /** Enables the ssl transport: ssl endpoints a client dials or a server listens on. */
  public B tls(TlsConfig config) {
    tls = config;
    return self();
  }

  /**
   * Opt-in certificate rotation: every {@code interval}, the PEM files of the TLS config are looked
   * at and, when one changed, reloaded ({@link Tether#reloadTls()}, {@link
   * TetherServer#reloadTls()}); connections opened from then on use them, open ones keep theirs.
   * Write the key before the certificate or replace both atomically (a rename): a pair that does
   * not match is logged and the previous context stays until the next change.
   *
   * @throws IllegalArgumentException at build time when the TLS config has no PEM file to watch
   */
  public B watchTls(Duration interval) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("a TLS watch interval must be positive: " + interval);
    }
    tlsWatch = interval;
    return self();
  }

  /**
   * The codec of typed proxies and typed services (default: {@link Tether#standardCodec()}); both
   * sides must use the same one. A server's typed services take the codec set before they are
   * registered.
   */
  public B codec(Codec c) {
    codec = Objects.requireNonNull(c);
    return self();
  }

  /** The clock every timing decision and event reads; tests pass a fake one. */
  public B ticker(Ticker t) {
    ticker = Objects.requireNonNull(t);
    return self();
  }

  /**
   * The source of randomness (a client's endpoint shuffling and jitter, a server's connection-age
   * jitter); tests pass a seeded one.
   */
  public B random(Random r) {
    random = Objects.requireNonNull(r);
    return self();
  }

  /**
   * What keeps time for timed work (a client's retry rounds, timeouts and reconnects; a server's
   * handshake deadline, reader idle and the grace of {@link TetherServer#shutdownGracefully}); each
   * task is handed to the thread that owns its state. Default: the runtime's own event loops. Tests
   * pass a fake clock.
   */
  public B scheduler(Scheduler s) {
    scheduler = Objects.requireNonNull(s);
    return self();
  }

  /**
   * Receives the events of the runtime or server ({@link dev.tether.observe.TetherEvent.Kind}), off
   * the event loops, in order; any number.
   */
  public B listener(TetherListener l) {
    listeners.add(Objects.requireNonNull(l));
    return self();
  }
}
