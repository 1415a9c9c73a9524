package dev.tether.server;

import dev.tether.CallContext;
import dev.tether.RawStreamService;
import dev.tether.codec.MappedPublisher;
import dev.tether.codec.Operation;
import dev.tether.codec.OperationTable;
import dev.tether.codec.StreamShape;
import dev.tether.spi.Codec;
import java.util.concurrent.Flow;

/**
 * Serves the stream methods of a service interface: decodes the opening's request, calls the method
 * (handing a bidirectional one the client's items, decoded) and encodes each item of the publisher
 * it returns. The same interface's other methods are calls, served by {@link TypedServiceHandler}.
 */
public final class TypedStreamService implements RawStreamService {
  private final OperationTable table;
  private final Object implementation;
  private final Codec codec;

  public <T> TypedStreamService(Class<T> iface, T implementation, Codec codec) {
    this.table = OperationTable.of(iface);
    this.implementation = iface.cast(implementation);
    this.codec = codec;
  }

  /**
   * False when the interface has no stream method of that name (the opening is
   * OPERATION_NOT_FOUND).
   */
  public boolean hasOperation(String operation) {
    Operation op = table.forName(operation);
    return op != null && op.isStream();
  }

  @Override
  public Flow.Publisher<byte[]> open(
      String operation, byte[] request, Flow.Publisher<byte[]> inbound, CallContext context)
      throws Exception {
    Operation op = table.forName(operation);
    StreamShape shape = op.stream();
    Flow.Publisher<Object> items =
        shape.isBidirectional()
            ? new MappedPublisher<>(inbound, bytes -> shape.decodeOutbound(codec, bytes))
            : null;
    @SuppressWarnings("unchecked")
    Flow.Publisher<Object> replies =
        (Flow.Publisher<Object>) op.openStream(implementation, codec, request, items);
    if (replies == null) {
      throw new NullPointerException(operation + " returned no publisher");
    }
    return new MappedPublisher<>(replies, item -> shape.encodeItem(codec, item));
  }
}
