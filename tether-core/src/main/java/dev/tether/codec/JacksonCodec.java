package dev.tether.codec;

import dev.tether.spi.CodecException;

import dev.tether.spi.Codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.dataformat.smile.SmileGenerator;
import com.fasterxml.jackson.dataformat.smile.SmileParser;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default codec: Jackson's binary Smile format. Records and POJOs work as Jackson maps them;
 * arguments travel as one Smile array and are read back element by element into the method's
 * parameter types, with no intermediate tree.
 */
public final class JacksonCodec implements Codec {
  private final ObjectMapper mapper;
  /** Readers by target type: a generic type and its deserializer are resolved once, not per call. */
  private final ConcurrentHashMap<Type, ObjectReader> readers = new ConcurrentHashMap<>();
  /** Writers by declared type, for the same reason. */
  private final ConcurrentHashMap<Type, ObjectWriter> writers = new ConcurrentHashMap<>();

  public JacksonCodec() {
    this(defaultMapper());
  }

  public JacksonCodec(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  private static ObjectMapper defaultMapper() {
    // byte[] fields as raw bytes: frames are binary-safe, and 7-bit packing costs a seventh more
    // bytes and a pass over every byte. Smile then insists on its 4-byte header, which readers
    // accept but do not require. No back-references to field names already written: a call's
    // value is mostly one small record, where the table of seen names (allocated per value, on
    // both ends) costs more time than the bytes it saves.
    SmileFactory factory =
        SmileFactory.builder()
            .enable(SmileGenerator.Feature.WRITE_HEADER)
            .disable(SmileGenerator.Feature.ENCODE_BINARY_AS_7BIT)
            .disable(SmileGenerator.Feature.CHECK_SHARED_NAMES)
            .disable(SmileParser.Feature.REQUIRE_HEADER)
            .build();
    return new ObjectMapper(factory)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .findAndRegisterModules();
  }

  @Override
  public byte[] encodeArguments(Object[] args) {
    return encodeValue(args == null ? new Object[0] : args);
  }

  @Override
  public Object[] decodeArguments(byte[] bytes, Type[] types) {
    try (JsonParser parser = mapper.createParser(bytes)) {
      if (parser.nextToken() != JsonToken.START_ARRAY) {
        throw new IOException("arguments are not an array");
      }
      Object[] args = new Object[types.length];
      for (int i = 0; i < types.length; i++) {
        if (parser.nextToken() == JsonToken.END_ARRAY) {
          throw new IOException("expected " + types.length + " arguments, got " + i);
        }
        args[i] = reader(types[i]).readValue(parser);
      }
      if (parser.nextToken() != JsonToken.END_ARRAY) {
        throw new IOException("more than " + types.length + " arguments");
      }
      return args;
    } catch (IOException e) {
      throw new CodecException("cannot decode arguments: " + e.getMessage(), e);
    }
  }

  @Override
  public byte[] encodeValue(Object value) {
    try {
      return mapper.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new CodecException("cannot encode " + value.getClass().getName() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public byte[] encodeValue(Object value, Type type) {
    ObjectWriter w = writers.get(type);
    if (w == null) {
      JavaType javaType = mapper.getTypeFactory().constructType(type);
      w = writers.computeIfAbsent(type, t -> mapper.writerFor(javaType));
    }
    try {
      return w.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new CodecException("cannot encode a " + type.getTypeName() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Object decodeValue(byte[] bytes, Type type) {
    try {
      return reader(type).readValue(bytes);
    } catch (IOException e) {
      throw new CodecException("cannot decode a " + type.getTypeName() + ": " + e.getMessage(), e);
    }
  }

  private ObjectReader reader(Type type) {
    ObjectReader r = readers.get(type);
    if (r == null) {
      JavaType javaType = mapper.getTypeFactory().constructType(type);
      r = readers.computeIfAbsent(type, t -> mapper.readerFor(javaType));
    }
    return r;
  }
}
