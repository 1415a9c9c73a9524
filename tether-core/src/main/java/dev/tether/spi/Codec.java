package dev.tether.spi;

import java.lang.reflect.Type;

/**
 * Turns typed values into payload bytes and back. Typed stubs encode a method's arguments as one
 * array and its result as one value; both sides must use the same codec. The default one is {@code
 * Tether.standardCodec()}.
 */
public interface Codec {

  /** Encodes the arguments of one call, in order, as one array. */
  byte[] encodeArguments(Object[] args);

  /** Decodes the arguments of one call; {@code types} are the method's generic parameter types. */
  Object[] decodeArguments(byte[] bytes, Type[] types);

  /** Encodes one result value (may be null). */
  byte[] encodeValue(Object value);

  /** Encodes one value declared as {@code type}; a codec may prepare per type to go faster. */
  default byte[] encodeValue(Object value, Type type) {
    return encodeValue(value);
  }

  /** Decodes one result value of the given generic type. */
  Object decodeValue(byte[] bytes, Type type);
}
