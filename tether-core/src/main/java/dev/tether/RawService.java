package dev.tether;

/**
 * An untyped service: gets every operation of its name with the raw request bytes and returns the
 * raw response bytes. A thrown exception reaches the caller as {@link RemoteException}.
 */
@FunctionalInterface
public interface RawService {
  byte[] handle(String operation, byte[] payload, CallContext context) throws Exception;
}
