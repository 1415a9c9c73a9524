package dev.tether.codec;

import dev.tether.Idempotent;
import dev.tether.spi.Codec;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.concurrent.CompletableFuture;

/**
 * How one interface method travels: its operation name, whether it is idempotent or async, and how
 * its arguments and result become bytes. Stubs and skeletons share it, so both sides agree. A lone
 * {@code byte[]} argument and a {@code byte[]} result pass through untouched; a lone argument of
 * another type travels as that value alone, several as one array.
 */
public final class Operation {
  private static final byte[] EMPTY = new byte[0];

  private final Method method;
  private final String name;
  private final boolean idempotent;
  private final boolean async;
  private final Type resultType;

  /** What the request carries: the method's parameters, without a stream's outbound publisher. */
  private final Type[] parameterTypes;

  /** Null for a call. */
  private final StreamShape stream;

  private final boolean rawArgument;
  private final boolean rawResult;

  /**
   * The method as {@code (Object target, Object argument) -> Object} for one parameter, {@code
   * (Object target, Object[] arguments) -> Object} otherwise, so a one-argument call needs no
   * argument array; null when the method cannot be reached through a handle, and then {@link
   * Method#invoke} serves.
   */
  private final MethodHandle invoker;

  Operation(Method method) {
    this.method = method;
    this.name = method.getName();
    this.idempotent = method.isAnnotationPresent(Idempotent.class);
    this.async = method.getReturnType() == CompletableFuture.class;
    this.resultType = async ? futureValueType(method) : method.getGenericReturnType();
    this.stream = StreamShape.of(method);
    Type[] parameters = method.getGenericParameterTypes();
    this.parameterTypes = stream == null ? parameters : stream.requestTypes(parameters);
    this.rawArgument = parameterTypes.length == 1 && parameterTypes[0] == byte[].class;
    this.rawResult = resultType == byte[].class;
    method.setAccessible(true);
    this.invoker = invokerOf(method, parameters.length);
  }

  private static MethodHandle invokerOf(Method method, int arity) {
    try {
      MethodHandle target = MethodHandles.lookup().unreflect(method); // accessible: no access check
      if (arity == 1) {
        return target.asType(MethodType.methodType(Object.class, Object.class, Object.class));
      }
      return target
          .asSpreader(Object[].class, arity)
          .asType(MethodType.methodType(Object.class, Object.class, Object[].class));
    } catch (IllegalAccessException | RuntimeException e) {
      return null;
    }
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

  /** True when the method returns a Flow.Publisher: each call opens a stream. */
  public boolean isStream() {
    return stream != null;
  }

  /** How the stream's items travel; null for a call. */
  public StreamShape stream() {
    return stream;
  }

  /** The request's bytes: the arguments, without a stream's outbound publisher. */
  public byte[] encodeArguments(Codec codec, Object[] args) {
    if (stream != null && args != null) {
      args = stream.requestArguments(args);
    }
    if (rawArgument) {
      return (byte[]) args[0];
    }
    return switch (parameterTypes.length) {
      case 0 -> EMPTY;
      case 1 -> codec.encodeValue(args[0], parameterTypes[0]);
      default -> codec.encodeArguments(args);
    };
  }

  /**
   * Decodes the arguments in {@code body} and calls the method on {@code target}; what the method
   * throws is rethrown as it is, not wrapped.
   */
  public Object call(Object target, Codec codec, byte[] body) throws Exception {
    if (invoker == null) {
      return reflectively(target, decodeArguments(codec, body));
    }
    if (parameterTypes.length == 1) {
      return invoke(target, rawArgument ? body : codec.decodeValue(body, parameterTypes[0]), null);
    }
    return invoke(target, null, decodeArguments(codec, body));
  }

  /**
   * Decodes the request in {@code body} and calls the stream method on {@code target} with {@code
   * outbound} as its publisher parameter (unused by a server stream's method); returns the method's
   * publisher.
   */
  public Object openStream(Object target, Codec codec, byte[] body, Object outbound)
      throws Exception {
    Object[] arguments = stream.withOutbound(decodeArguments(codec, body), outbound);
    if (invoker == null) {
      return reflectively(target, arguments);
    }
    return arguments.length == 1
        ? invoke(target, arguments[0], null)
        : invoke(target, null, arguments);
  }

  /** Calls the handle with {@code one} argument, or with {@code many} when it takes an array. */
  private Object invoke(Object target, Object one, Object[] many) throws Exception {
    try {
      return many == null
          ? (Object) invoker.invokeExact(target, one)
          : (Object) invoker.invokeExact(target, many);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new InvocationTargetException(
          e); // neither an Exception nor an Error: kept, as Method.invoke keeps it
    }
  }

  private Object reflectively(Object target, Object[] arguments) throws Exception {
    try {
      return method.invoke(target, arguments);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw e;
    }
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
