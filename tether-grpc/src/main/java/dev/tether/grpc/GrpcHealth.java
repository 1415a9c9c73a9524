package dev.tether.grpc;

import io.grpc.BindableService;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.util.Collection;

/**
 * {@code grpc.health.v1.Health} following the server: grpc-java's own implementation, SERVING for
 * the server as a whole ("") and for each hosted service by its full name while the server runs,
 * NOT_SERVING for all of them once a graceful shutdown begins; an unknown name is NOT_FOUND. Kept
 * apart so that only an application that asks for health needs grpc-services.
 */
final class GrpcHealth {
  private final HealthStatusManager manager = new HealthStatusManager();

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
   * The drain began: every status turns NOT_SERVING for good, so probes and balancers look away.
   */
  void draining() {
    manager.enterTerminalState();
  }
}
