package dev.tether.grpc;

import dev.tether.TetherServer;
import io.grpc.BindableService;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The gRPC services a Tether server hosts, written against grpc-java's API: a generated {@code
 * *ImplBase} or any {@link ServerServiceDefinition} (with its {@code ServerInterceptors}) moves
 * over unchanged. {@link #configure} makes the server's stream endpoints speak gRPC too; the first
 * bytes of each connection choose between the two protocols.
 */
public final class GrpcServices {
  /** gRPC's default: larger messages are refused with RESOURCE_EXHAUSTED. */
  public static final int DEFAULT_MAX_INBOUND_MESSAGE_SIZE = 4 * 1024 * 1024;

  /** gRPC's default: a request whose header list is larger is refused. */
  public static final int DEFAULT_MAX_INBOUND_METADATA_SIZE = 8 * 1024;

  /**
   * The request bytes one connection may make the server hold at once when the message size is the
   * default: four maximum-size messages.
   */
  public static final long DEFAULT_MAX_INBOUND_BYTES_PER_CONNECTION =
      4L * DEFAULT_MAX_INBOUND_MESSAGE_SIZE;

  /**
   * The response bytes one connection's calls may hold before a call that sends past its {@code
   * isReady()} waits for its client to read: 16 MiB.
   */
  public static final long DEFAULT_MAX_OUTBOUND_BYTES_PER_CONNECTION = 16L * 1024 * 1024;

  /** How long such a send waits for a client that reads nothing before its call ends: 10 s. */
  public static final Duration DEFAULT_MAX_OUTBOUND_STALL = Duration.ofSeconds(10);

  /** A message's five-byte prefix (flag and length) is held with its bytes. */
  private static final int MESSAGE_PREFIX = 5;

  private final Map<String, ServerMethodDefinition<?, ?>> methods = new HashMap<>();
  private final Set<String> serviceNames = new HashSet<>();
  private int maxInboundMessageSize = DEFAULT_MAX_INBOUND_MESSAGE_SIZE;
  private int maxInboundMetadataSize = DEFAULT_MAX_INBOUND_METADATA_SIZE;

  /** Zero until set: then four maximum-size messages, at least the default. */
  private long maxInboundBytesPerConnection;

  private long maxOutboundBytesPerConnection = DEFAULT_MAX_OUTBOUND_BYTES_PER_CONNECTION;
  private Duration maxOutboundStall = DEFAULT_MAX_OUTBOUND_STALL;

  private PingPolicy.Permit pings = PingPolicy.Permit.DEFAULT;

  /** Null unless {@link #health()} was called. */
  private GrpcHealth health;

  /** Null unless {@link #reflection()} was called. */
  private GrpcReflection reflection;

  /** What the last {@link #configure} gave its server; null before. */
  private GrpcProtocol configured;

  private final List<ServerServiceDefinition> definitions = new ArrayList<>();

  GrpcServices() {}

  /** A service implementation, such as a generated {@code *ImplBase} subclass. */
  public GrpcServices service(BindableService service) {
    return service(service.bindService());
  }

  /** A service definition; one service name may be registered once. */
  public GrpcServices service(ServerServiceDefinition definition) {
    String name = definition.getServiceDescriptor().getName();
    if (!serviceNames.add(name)) {
      throw new IllegalArgumentException("gRPC service \"" + name + "\" is registered twice");
    }
    definitions.add(definition);
    for (ServerMethodDefinition<?, ?> m : definition.getMethods()) {
      methods.put(m.getMethodDescriptor().getFullMethodName(), m);
    }
    return this;
  }

  /**
   * Serves {@code grpc.health.v1.Health} (Check and Watch, for Kubernetes probes and meshes) with
   * grpc-java's own implementation: SERVING for "" and for each service registered here, and each
   * of the server's own Tether services by its identity, while the server runs; NOT_SERVING for all
   * once a graceful shutdown begins, NOT_FOUND for other names. Needs {@code io.grpc:grpc-services}
   * on the class path.
   */
  public GrpcServices health() {
    if (health == null) {
      health = new GrpcHealth();
      service(health.service());
    }
    return this;
  }

  /**
   * Serves {@code grpc.reflection.v1} and {@code v1alpha}, so grpcurl and Postman can list the
   * services and read their protobuf descriptors, with grpc-java's own implementations. Needs
   * {@code io.grpc:grpc-services} on the class path.
   */
  public GrpcServices reflection() {
    if (reflection == null) {
      reflection = new GrpcReflection();
      service(reflection.v1());
      service(reflection.v1alpha());
    }
    return this;
  }

  /** The largest request message accepted (4 MiB by default); larger get RESOURCE_EXHAUSTED. */
  public GrpcServices maxInboundMessageSize(int bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maxInboundMessageSize must be positive: " + bytes);
    }
    maxInboundMessageSize = bytes;
    return this;
  }

  /**
   * The request bytes one client connection may make the server hold at once, over all its calls:
   * messages it has begun and not finished, and whole ones no service asked for yet. By default
   * four maximum-size messages ({@link #maxInboundMessageSize}), at least 16 MiB. DATA that would
   * take a connection over it ends its own call with RESOURCE_EXHAUSTED (trailers, then RST_STREAM)
   * instead of being kept; the connection and its other calls go on. It must hold one maximum-size
   * message; {@link #configure} checks.
   */
  public GrpcServices maxInboundBytesPerConnection(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maxInboundBytesPerConnection must be positive: " + bytes);
    }
    maxInboundBytesPerConnection = bytes;
    return this;
  }

  /**
   * The response bytes one client connection's calls may have handed over and not yet written
   * before a call that keeps sending while not ready ({@code isReady()} false, as a service that
   * calls {@code onNext} in a loop does) is held up: 16 MiB by default. Its send then waits until
   * the client has read enough of the connection, or enough of that call's own responses to make it
   * ready again, so such a service runs at its client's pace instead of filling the server. A call
   * that sends while ready is never held up by this.
   */
  public GrpcServices maxOutboundBytesPerConnection(long bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException(
          "maxOutboundBytesPerConnection must be positive: " + bytes);
    }
    maxOutboundBytesPerConnection = bytes;
    return this;
  }

  /**
   * How long a send held up by {@link #maxOutboundBytesPerConnection} waits while its client reads
   * none of that call's responses (10 s by default, checked each half of it, so the call ends
   * within twice that; reading the connection's other calls does not count) before its call ends:
   * reset with ENHANCE_YOUR_CALM, which the client reads as RESOURCE_EXHAUSTED, what it held
   * dropped, its service's {@code Context} cancelled; the connection and its other calls go on. A
   * send from an event loop (DIRECT execution) cannot wait, and ends its call at once.
   */
  public GrpcServices maxOutboundStall(Duration stall) {
    if (stall.isNegative() || stall.isZero()) {
      throw new IllegalArgumentException("maxOutboundStall must be positive: " + stall);
    }
    maxOutboundStall = stall;
    return this;
  }

  /** The budget as set, or its default for the message size. */
  private long inboundBytesPerConnection() {
    if (maxInboundBytesPerConnection == 0) {
      return Math.max(DEFAULT_MAX_INBOUND_BYTES_PER_CONNECTION, 4L * maxInboundMessageSize);
    }
    long oneMessage = (long) maxInboundMessageSize + MESSAGE_PREFIX;
    if (maxInboundBytesPerConnection < oneMessage) {
      throw new IllegalArgumentException(
          "maxInboundBytesPerConnection ("
              + maxInboundBytesPerConnection
              + ") must hold one message of maxInboundMessageSize and its prefix ("
              + oneMessage
              + ")");
    }
    return maxInboundBytesPerConnection;
  }

  /**
   * The largest header list (metadata) a request may carry, as HTTP/2 counts it (each name and
   * value plus 32 bytes), 8 KiB by default: announced as SETTINGS_MAX_HEADER_LIST_SIZE, and a
   * request above it is refused without reaching a service. Raise it for large tokens in metadata.
   */
  public GrpcServices maxInboundMetadataSize(int bytes) {
    if (bytes <= 0) {
      throw new IllegalArgumentException("maxInboundMetadataSize must be positive: " + bytes);
    }
    maxInboundMetadataSize = bytes;
    return this;
  }

  /**
   * How often a client may ping (5 minutes by default, grpc-java's): a client that pings sooner
   * three times without the server sending anything in between gets GOAWAY ENHANCE_YOUR_CALM
   * "too_many_pings" and its connection ends. Lower it for clients configured with a shorter {@code
   * keepAliveTime}.
   */
  public GrpcServices permitKeepAliveTime(Duration time) {
    pings = new PingPolicy.Permit(time, pings.withoutCalls());
    return this;
  }

  /**
   * Whether clients may ping at the permitted rate while they have no call running (false by
   * default, grpc-java's: then once per two hours).
   */
  public GrpcServices permitKeepAliveWithoutCalls(boolean permit) {
    pings = new PingPolicy.Permit(pings.time(), permit);
    return this;
  }

  /**
   * Makes {@code server}'s stream endpoints serve these services to gRPC clients (HTTP/2 without
   * TLS, "h2c") beside Tether's protocol; returns the same builder.
   */
  public TetherServer.Builder configure(TetherServer.Builder server) {
    Objects.requireNonNull(server);
    long inboundBytes = inboundBytesPerConnection();
    if (reflection != null) {
      reflection.hosting(definitions);
    }
    GrpcProtocol.Life life = GrpcProtocol.Life.NONE;
    if (health != null) {
      health.serving(serviceNames);
      life = health;
    }
    configured =
        new GrpcProtocol(
            Map.copyOf(methods),
            maxInboundMessageSize,
            maxInboundMetadataSize,
            inboundBytes,
            maxOutboundBytesPerConnection,
            maxOutboundStall.toNanos(),
            pings,
            life);
    return server.wireProtocol(configured);
  }

  /** What the last {@link #configure} gave its server (for tests); null before. */
  GrpcProtocol protocol() {
    return configured;
  }
}
