package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.RawService;

/** Adapts an untyped {@link RawService}, which accepts every operation name. */
public final class RawServiceHandler implements ServiceHandler {
  private final RawService service;

  public RawServiceHandler(RawService service) {
    this.service = service;
  }

  @Override
  public boolean hasOperation(String operation) {
    return true;
  }

  @Override
  public Object handle(String operation, byte[] payload, CallContext context) throws Exception {
    return service.handle(operation, payload, context);
  }
}
