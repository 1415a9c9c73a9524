package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.codec.Operation;
import dev.tether.codec.OperationTable;
import dev.tether.spi.Codec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Serves an implementation of a service interface: decodes the arguments of the named method, calls
 * it, and encodes its result (or the result its CompletableFuture completes with). Its stream
 * methods are served by {@link TypedStreamService}.
 */
public final class TypedServiceHandler implements ServiceHandler {
  private final OperationTable table;
  private final Object implementation;
  private final Codec codec;

  public <T> TypedServiceHandler(Class<T> iface, T implementation, Codec codec) {
    this.table = OperationTable.of(iface);
    this.implementation = iface.cast(implementation);
    this.codec = codec;
  }

  @Override
  public boolean hasOperation(String operation) {
    Operation op = table.forName(operation);
    return op != null && !op.isStream(); // a stream method is opened as a stream, never called
  }

  @Override
  public Object handle(String operation, byte[] payload, CallContext context) throws Exception {
    Operation op = table.forName(operation);
    Object result = op.call(implementation, codec, payload);
    if (op.isAsync()) {
      // An implementation that answers at once returns a completed future: encode now, which spares
      // the dispatcher a stage and a callback per call.
      if (result instanceof CompletableFuture<?> done
          && done.isDone()
          && !done.isCompletedExceptionally()) {
        return op.encodeResult(codec, done.join());
      }
      return ((CompletionStage<?>) result).thenApply(value -> op.encodeResult(codec, value));
    }
    return op.encodeResult(codec, result);
  }
}
