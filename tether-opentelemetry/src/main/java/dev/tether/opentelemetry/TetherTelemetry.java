package dev.tether.opentelemetry;

import dev.tether.Tether;
import dev.tether.TetherServer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.time.Clock;
import java.util.Objects;

/**
 * OpenTelemetry tracing for Tether clients and servers: {@code configure(Tether.builder())} gives a
 * client a CLIENT span per call (and a child per attempt when it takes more than one); {@code
 * configure(TetherServer.builder())} gives a server a SERVER span per execution, parented by the
 * trace context the client sent in the call's metadata through {@code otel}'s propagators
 * (configure the W3C {@code traceparent} one). Thread-safe; one may serve any number of builders.
 */
public final class TetherTelemetry {
  /** The instrumentation scope the spans are recorded under. */
  public static final String INSTRUMENTATION_NAME = "dev.tether.opentelemetry";

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final Clock clock;

  private TetherTelemetry(OpenTelemetry otel, Clock clock) {
    this.tracer = otel.getTracer(INSTRUMENTATION_NAME);
    this.propagator = otel.getPropagators().getTextMapPropagator();
    this.clock = clock;
  }

  /**
   * Tracing that records through {@code otel}'s tracer provider and propagates with its
   * propagators.
   */
  public static TetherTelemetry create(OpenTelemetry otel) {
    return create(otel, Clock.systemUTC());
  }

  /**
   * As {@link #create(OpenTelemetry)}, with the clock that dates an attempt span made after the
   * fact (the first attempt's, once a second one starts); every other time is the tracer's own.
   */
  public static TetherTelemetry create(OpenTelemetry otel, Clock clock) {
    return new TetherTelemetry(
        Objects.requireNonNull(otel, "otel"), Objects.requireNonNull(clock, "clock"));
  }

  /** Adds the client interceptor that traces every call of the runtime {@code builder} builds. */
  public Tether.Builder configure(Tether.Builder builder) {
    return builder.clientInterceptor(new ClientTracing(tracer, propagator, clock));
  }

  /** Adds the call observer that traces every execution of the server {@code builder} builds. */
  public TetherServer.Builder configure(TetherServer.Builder builder) {
    return builder.callObserver(new ServerTracing(tracer, propagator));
  }
}
