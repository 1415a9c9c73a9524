package dev.tether.grpc;

import dev.tether.spi.WireProtocol;
import io.grpc.BindableService;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.util.Collection;

/**
 * {@code grpc.health.v1.Health} following the server: grpc-java's own implementation, SERVING for
 * the server as a whole ("") and for each hosted service by its full name (the server's own Tether
 * services by their identities) while the server runs, NOT_SERVING for all of them once a graceful
 * shutdown begins; an unknown name is NOT_FOUND. Kept apart so that only an application that asks
 * for health needs grpc-services.
 */
final class GrpcHealth implements GrpcProtocol.Life {
  private final HealthStatusManager manager = new HealthStatusManager();

  /** Guarded by this: the Tether services were added (the server is known from then on). */
  private boolean tetherServicesAdded;

  BindableService service() {
    return manager.getHealthService();
  }

  /** The server is about to serve {@code services}. */
  void serving(Collection<String> services) {
    manager.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
    for (String s : services) {
      manager.setStatus(s, ServingStatus.SERVING);
    }
  }

  /**
   * A connection is about to be served: the first adds the server's Tether services, which only the
   * server knows, before any health request can arrive on it. After a drain began they stay
   * unknown, as grpc-java's manager ignores new statuses then.
   */
  @Override
  public synchronized void serving(WireProtocol.Host server) {
    if (!tetherServicesAdded) {
      tetherServicesAdded = true;
      serving(server.tetherServiceNames());
    }
  }

  /**
   * The drain began: every status turns NOT_SERVING for good, so probes and balancers look away.
   */
  @Override
  public void draining() {
    manager.enterTerminalState();
  }
}
