package dev.tether.client;

import dev.tether.ClientInterceptor;
import dev.tether.protocol.Request;
import dev.tether.spi.ClientWireProtocol;
import java.net.SocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One logical call as a {@link ClientInterceptor} sees it: the listener the interceptor returned,
 * the count of attempts across retries and hedges, and the end, told once. Made only when the
 * runtime has an interceptor, so a plain call never meets this class. What the listener throws is
 * logged and swallowed: watching a call never changes it.
 */
final class TracedCall implements ClientInterceptor.Call {
  private static final Logger log = LoggerFactory.getLogger(TracedCall.class);

  private final ProxySettings settings;
  private final String operation;
  private final int flags;

  /** Null once the interceptor chose not to watch the call. */
  private ClientInterceptor.Listener listener;

  private final AtomicInteger attempts = new AtomicInteger();
  private final AtomicBoolean ended = new AtomicBoolean();

  private TracedCall(ProxySettings settings, String operation, int flags) {
    this.settings = settings;
    this.operation = operation;
    this.flags = flags;
  }

  /**
   * Asks {@code interceptor} about a new call (on the caller's thread); null when it watches
   * nothing.
   */
  static TracedCall start(
      ClientInterceptor interceptor, ProxySettings settings, String operation, int flags) {
    TracedCall call = new TracedCall(settings, operation, flags);
    try {
      call.listener = interceptor.interceptCall(call);
    } catch (RuntimeException e) {
      log.warn(
          "client interceptor {} failed on {}.{}; the call goes on unwatched",
          interceptor,
          settings.identity(),
          operation,
          e);
    }
    return call.listener == null ? null : call;
  }

  @Override
  public String service() {
    return settings.identity();
  }

  @Override
  public String operation() {
    return operation;
  }

  @Override
  public boolean isIdempotent() {
    return (flags & Request.IDEMPOTENT) != 0;
  }

  @Override
  public boolean isOneway() {
    return (flags & Request.ONEWAY) != 0;
  }

  @Override
  public Map<String, String> metadata() {
    return settings.metadata();
  }

  @Override
  public String protocol() {
    ClientWireProtocol other = settings.wireProtocol();
    return other == null ? "tether" : other.family();
  }

  /**
   * An attempt leaves on {@code c} for {@code reason} (null for the first): the listener hears it
   * and may add headers. Returns the metadata this attempt's request carries when the listener
   * added to the proxy's, else null.
   */
  Map<String, String> onAttempt(RequestChannel c, String reason) {
    AttemptStart attempt =
        new AttemptStart(attempts.incrementAndGet(), reason, c, settings.metadata());
    try {
      listener.onAttempt(attempt);
    } catch (RuntimeException e) {
      log.warn(
          "client interceptor's listener failed on an attempt of {}.{}",
          settings.identity(),
          operation,
          e);
    }
    attempt.sealed = true;
    return attempt.metadata;
  }

  /** The call ended; the listener hears it once, whichever attempt or thread gets here first. */
  void onEnd(Throwable failure) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    try {
      listener.onEnd(failure);
    } catch (RuntimeException e) {
      log.warn(
          "client interceptor's listener failed at the end of {}.{}",
          settings.identity(),
          operation,
          e);
    }
  }

  /** One attempt as the listener sees it; its metadata is copied only once a header is added. */
  private static final class AttemptStart implements ClientInterceptor.AttemptStart {
    private final int number;
    private final String reason;
    private final RequestChannel connection;
    private final Map<String, String> proxyMetadata;

    /** Null until the listener adds a header. */
    private Map<String, String> metadata;

    /** True once onAttempt returned: the request is being encoded, so no header can join it. */
    private boolean sealed;

    AttemptStart(
        int number, String reason, RequestChannel connection, Map<String, String> proxyMetadata) {
      this.number = number;
      this.reason = reason;
      this.connection = connection;
      this.proxyMetadata = proxyMetadata;
    }

    @Override
    public int number() {
      return number;
    }

    @Override
    public String reason() {
      return reason;
    }

    @Override
    public String endpoint() {
      return CallAttempt.endpointOf(connection);
    }

    @Override
    public SocketAddress serverAddress() {
      return connection.remoteAddress();
    }

    @Override
    public void putMetadata(String key, String value) {
      if (sealed) {
        throw new IllegalStateException(
            "headers can be added to an attempt only while onAttempt runs");
      }
      if (metadata == null) {
        metadata = new LinkedHashMap<>(proxyMetadata);
      }
      metadata.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
    }
  }
}
