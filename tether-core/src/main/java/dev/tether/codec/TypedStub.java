package dev.tether.codec;

import dev.tether.TetherException;
import dev.tether.spi.Codec;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.function.Function;

/**
 * The client side of a typed service: a {@link java.lang.reflect.Proxy} whose methods become
 * requests. Blocking methods wait and rethrow Tether's exceptions unwrapped; methods returning
 * CompletableFuture complete with the decoded result; methods returning Flow.Publisher open a
 * stream at each subscription, their items decoded as they arrive.
 */
public final class TypedStub implements InvocationHandler {
  private final OperationTable table;
  private final Codec codec;
  private final RemoteCall call;
  private final String description;

  /**
   * The Method instance the proxy passed last and its operation: a stub mostly sees one method over
   * and over, and this answers it without the table's hash lookup. Racy on purpose; a record of
   * final fields is safe to publish through a plain field.
   */
  private LastCall last;

  private TypedStub(OperationTable table, Codec codec, RemoteCall call, String description) {
    this.table = table;
    this.codec = codec;
    this.call = call;
    this.description = description;
  }

  /** A stub implementing {@code iface} whose calls go through {@code call}. */
  public static <T> T create(Class<T> iface, Codec codec, RemoteCall call, String description) {
    TypedStub handler = new TypedStub(OperationTable.of(iface), codec, call, description);
    Object stub = Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, handler);
    return iface.cast(stub);
  }

  @Override
  public Object invoke(Object self, Method method, Object[] args) throws Throwable {
    LastCall seen = last;
    if (seen == null || seen.method() != method) {
      Operation op = table.forMethod(method);
      if (op == null) {
        return invokeObjectMethod(self, method, args);
      }
      seen = new LastCall(method, op, bytes -> op.decodeResult(codec, bytes));
      last = seen;
    }
    Operation op = seen.operation();
    if (op.isStream()) {
      return openStream(op, args);
    }
    byte[] body = op.encodeArguments(codec, args);
    if (op.isAsync()) {
      return call.send(op.name(), body, op.isIdempotent(), seen.decoder());
    }
    // A blocking call decodes on the caller's thread, not on the connection's event loop.
    return op.decodeResult(codec, await(call.send(op.name(), body, op.isIdempotent())));
  }

  /**
   * A typed stream: the request encoded now; the items both ways encoded and decoded as they
   * travel.
   */
  private Flow.Publisher<Object> openStream(Operation op, Object[] args) {
    StreamShape shape = op.stream();
    Flow.Publisher<byte[]> outbound = null;
    if (shape.isBidirectional()) {
      @SuppressWarnings("unchecked")
      Flow.Publisher<Object> given = (Flow.Publisher<Object>) args[shape.outboundIndex()];
      if (given == null) {
        throw new NullPointerException(
            op.name() + ": the outbound publisher of a bidirectional stream is null");
      }
      outbound = new MappedPublisher<>(given, item -> shape.encodeOutbound(codec, item));
    }
    Flow.Publisher<byte[]> replies =
        call.stream(op.name(), op.encodeArguments(codec, args), op.isIdempotent(), outbound);
    return new MappedPublisher<>(replies, bytes -> shape.decodeItem(codec, bytes));
  }

  /**
   * A method as the proxy passes it, its operation, and the operation's result decoder, made once.
   */
  private record LastCall(Method method, Operation operation, Function<byte[], Object> decoder) {}

  /** Waits for a reply, rethrowing Tether's own exceptions as they are. */
  public static byte[] await(CompletableFuture<byte[]> reply) {
    if (reply instanceof BlockingReply blocking) {
      return blocking.awaitReply();
    }
    try {
      return reply.get();
    } catch (ExecutionException | CompletionException e) {
      throw unwrap(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      reply.cancel(false);
      throw new TetherException("interrupted while waiting for a reply", e);
    }
  }

  private static RuntimeException unwrap(Throwable cause) {
    if (cause instanceof RuntimeException re) {
      return re;
    }
    return new TetherException(String.valueOf(cause), cause);
  }

  private Object invokeObjectMethod(Object self, Method method, Object[] args) throws Throwable {
    switch (method.getName()) {
      case "toString":
        return table.serviceInterface().getSimpleName() + "[" + description + "]";
      case "hashCode":
        return System.identityHashCode(self);
      case "equals":
        return self == args[0];
      default:
        if (method.isDefault()) {
          return InvocationHandler.invokeDefault(self, method, args);
        }
        throw new UnsupportedOperationException(method.toString());
    }
  }
}
