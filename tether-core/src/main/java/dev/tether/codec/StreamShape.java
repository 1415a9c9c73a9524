package dev.tether.codec;

import dev.tether.spi.Codec;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.concurrent.Flow;

/**
 * What makes an interface method a stream: it returns {@code Flow.Publisher<T>}, and a
 * bidirectional one also takes one {@code Flow.Publisher<A>}, the items the client sends. The other
 * parameters are the opening's request. Items travel one value each, {@code byte[]} raw.
 */
public final class StreamShape {
  private final Type itemType;
  private final int outboundIndex;
  private final Type outboundItemType;

  private StreamShape(Type itemType, int outboundIndex, Type outboundItemType) {
    this.itemType = itemType;
    this.outboundIndex = outboundIndex;
    this.outboundItemType = outboundItemType;
  }

  /**
   * The shape of {@code method}, or null when it is a call; a method that cannot be either is
   * refused.
   */
  static StreamShape of(Method method) {
    int outbound = -1;
    Class<?>[] parameters = method.getParameterTypes();
    for (int i = 0; i < parameters.length; i++) {
      if (parameters[i] == Flow.Publisher.class) {
        if (outbound >= 0) {
          throw new IllegalArgumentException(
              method + " takes two publishers; a stream has one outbound direction");
        }
        outbound = i;
      }
    }
    if (method.getReturnType() != Flow.Publisher.class) {
      if (outbound >= 0) {
        throw new IllegalArgumentException(
            method
                + " takes a Flow.Publisher but returns none: client streaming"
                + " is a bidirectional stream whose reply has one item, so return Flow.Publisher");
      }
      return null;
    }
    Type outboundItem =
        outbound < 0 ? null : typeArgument(method.getGenericParameterTypes()[outbound]);
    return new StreamShape(typeArgument(method.getGenericReturnType()), outbound, outboundItem);
  }

  private static Type typeArgument(Type publisher) {
    return publisher instanceof ParameterizedType p ? p.getActualTypeArguments()[0] : Object.class;
  }

  public boolean isBidirectional() {
    return outboundIndex >= 0;
  }

  /**
   * The position of the outbound publisher among the method's parameters; -1 for a server stream.
   */
  public int outboundIndex() {
    return outboundIndex;
  }

  /** The method's parameters without the outbound publisher: what the opening's request carries. */
  Type[] requestTypes(Type[] parameters) {
    return isBidirectional() ? without(parameters, outboundIndex) : parameters;
  }

  Object[] requestArguments(Object[] arguments) {
    return isBidirectional() ? without(arguments, outboundIndex) : arguments;
  }

  /** The method's arguments: the request's, with {@code outbound} back in its place. */
  Object[] withOutbound(Object[] request, Object outbound) {
    if (!isBidirectional()) {
      return request;
    }
    Object[] all = new Object[request.length + 1];
    System.arraycopy(request, 0, all, 0, outboundIndex);
    all[outboundIndex] = outbound;
    System.arraycopy(
        request, outboundIndex, all, outboundIndex + 1, request.length - outboundIndex);
    return all;
  }

  private static <E> E[] without(E[] all, int index) {
    E[] rest = Arrays.copyOf(all, all.length - 1);
    System.arraycopy(all, index + 1, rest, index, all.length - index - 1);
    return rest;
  }

  public byte[] encodeItem(Codec codec, Object item) {
    return encode(codec, item, itemType);
  }

  public Object decodeItem(Codec codec, byte[] bytes) {
    return decode(codec, bytes, itemType);
  }

  public byte[] encodeOutbound(Codec codec, Object item) {
    return encode(codec, item, outboundItemType);
  }

  public Object decodeOutbound(Codec codec, byte[] bytes) {
    return decode(codec, bytes, outboundItemType);
  }

  private static byte[] encode(Codec codec, Object item, Type type) {
    return type == byte[].class ? (byte[]) item : codec.encodeValue(item, type);
  }

  private static Object decode(Codec codec, byte[] bytes, Type type) {
    return type == byte[].class ? bytes : codec.decodeValue(bytes, type);
  }
}
