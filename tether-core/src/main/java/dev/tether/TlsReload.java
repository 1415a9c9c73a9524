package dev.tether;

import dev.tether.internal.EventBus;
import dev.tether.observe.TetherEvent;
import io.netty.handler.ssl.SslContext;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reload of a runtime's or server's TLS context, whether asked for or found by a {@link
 * TlsWatch}: the new context is built first and installed only when it builds, so files that do not
 * belong together (a key written before its certificate) leave the previous context in force.
 * Either outcome is logged and emitted as an event.
 */
final class TlsReload {
  private static final Logger log = LoggerFactory.getLogger(TlsReload.class);

  private TlsReload() {}

  /**
   * Builds with {@code build} and hands the result to {@code install}.
   *
   * @param side "client" or "server", for the log and the event
   * @throws IllegalArgumentException from {@code build} or {@code install}, after the WARN and the
   *     {@link TetherEvent.Kind#TLS_RELOAD_REFUSED} event; nothing was installed
   */
  static void run(
      Supplier<SslContext> build, Consumer<SslContext> install, String side, EventBus events) {
    try {
      // Installing may refuse too: a chain that lost a certificate the one in use sends.
      install.accept(build.get());
    } catch (IllegalArgumentException refused) {
      log.warn(
          "TLS {} context not reloaded; the previous one stays: {}", side, refused.getMessage());
      events.emit(
          TetherEvent.Kind.TLS_RELOAD_REFUSED,
          null,
          "TLS " + side + " context not reloaded, the previous one stays: " + refused.getMessage(),
          refused);
      throw refused;
    }
    log.info("TLS {} context reloaded: new connections use it", side);
    events.emit(TetherEvent.Kind.TLS_RELOADED, null, "TLS " + side + " context reloaded", null);
  }
}
