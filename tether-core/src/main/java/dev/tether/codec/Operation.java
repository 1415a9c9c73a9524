package dev.tether.codec;

import dev.tether.spi.Codec;

import dev.tether.Idempotent;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.concurrent.CompletableFuture;

/**
 * How one interface method travels: its operation name, whether it is idempotent or async, and
 * how its arguments and result become bytes. Stubs and skeletons share it, so both sides agree.
 * A lone {@code byte[]} argument and a {@code byte[]} result pass through untouched; a lone
 * argument of another type travels as that value alone, several as one array.
 */
public final class Operation {
  private static final byte[] EMPTY = new byte[0];

  private final Method method;
  private final String name;
  private final boolean idempotent;
  private final boolean async;
  private final Type resultType;
  private final Type[] parameterTypes;
  private final boolean rawArgument;
  private final boolean rawResult;

  Operation(Method method) {
    this.method = method;
    this.name = method.getName();
    this.idempotent = method.isAnnotationPresent(Idempotent.class);
    this.async = method.getReturnType() == CompletableFuture.class;
    this.resultType = async ? futureValueType(method) : method.getGenericReturnType();
    this.parameterTypes = method.getGenericParameterTypes();
    this.rawArgument = parameterTypes.length == 1 && parameterTypes[0] == byte[].class;
    this.rawResult = resultType == byte[].class;
    method.setAccessible(true);
  }

  private static Type futureValueType(Method method) {
    Type generic = method.getGenericReturnType();
    if (generic instanceof ParameterizedType p) {
      return p.getActualTypeArguments()[0];
    }
    return Object.class;
  }

  public Method method() {
    return method;
  }

  public String name() {
    return name;
  }

  public boolean isIdempotent() {
    return idempotent;
  }

  /** True when the method returns a CompletableFuture. */
  public boolean isAsync() {
    return async;
  }

  public byte[] encodeArguments(Codec codec, Object[] args) {
    if (rawArgument) {
      return (byte[]) args[0];
    }
    return switch (parameterTypes.length) {
      case 0 -> EMPTY;
      case 1 -> codec.encodeValue(args[0], parameterTypes[0]);
      default -> codec.encodeArguments(args);
    };
  }

  public Object[] decodeArguments(Codec codec, byte[] body) {
    if (rawArgument) {
      return new Object[] {body};
    }
    return switch (parameterTypes.length) {
      case 0 -> new Object[0];
      case 1 -> new Object[] {codec.decodeValue(body, parameterTypes[0])};
      default -> codec.decodeArguments(body, parameterTypes);
    };
  }

  public byte[] encodeResult(Codec codec, Object result) {
    if (rawResult) {
      return result == null ? EMPTY : (byte[]) result;
    }
    return isVoid() ? EMPTY : codec.encodeValue(result, resultType);
  }

  public Object decodeResult(Codec codec, byte[] body) {
    if (rawResult) {
      return body;
    }
    return isVoid() ? null : codec.decodeValue(body, resultType);
  }

  private boolean isVoid() {
    return resultType == void.class || resultType == Void.class;
  }
}
