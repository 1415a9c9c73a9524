package dev.tether.codec;

import com.fasterxml.jackson.core.JsonFactory;
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
import dev.tether.spi.Codec;
import dev.tether.spi.CodecException;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default codec: Jackson's binary Smile format. Records and POJOs work as Jackson maps them;
 * arguments travel as one Smile array and are read back element by element into the method's
 * parameter types, with no intermediate tree. A lone record argument or result goes through a
 * {@link RecordCodec} made for its type, which writes the same Smile object as databind without
 * databind's per-value setup.
 */
public final class JacksonCodec implements Codec {
  private final ObjectMapper mapper;

  /**
   * Readers by target type: a generic type and its deserializer are resolved once, not per call.
   */
  private final ConcurrentHashMap<Type, ObjectReader> readers = new ConcurrentHashMap<>();

  /** How each declared type of a lone argument or a result travels, decided at its first use. */
  private final ConcurrentHashMap<Type, ValueCodec> valueCodecs = new ConcurrentHashMap<>();

  /** The type looked up last and its codec; racy on purpose, see {@link #valueCodec}. */
  private LastValueCodec lastValueCodec;

  /**
   * Whether records may take a {@link RecordCodec}: only with this class's own mapper, whose
   * settings it mirrors.
   */
  private final boolean recordCodecs;

  /**
   * The default: Smile as configured below, records through a {@link RecordCodec} prepared per
   * type.
   */
  public JacksonCodec() {
    this(defaultMapper(), true);
  }

  /** A codec on {@code mapper} and its settings: every value goes through databind. */
  public JacksonCodec(ObjectMapper mapper) {
    this(mapper, false);
  }

  private JacksonCodec(ObjectMapper mapper, boolean recordCodecs) {
    this.mapper = mapper;
    this.recordCodecs = recordCodecs;
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
            // Field names are not interned in the factory's table shared by every parser: Jackson
            // files the name of a malformed ASCII key under its bytes, and a later, well-formed
            // Unicode name with the same bytes, from any peer, was then read as that garbage.
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
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
      throw new CodecException(
          "cannot encode " + value.getClass().getName() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public byte[] encodeValue(Object value, Type type) {
    try {
      return valueCodec(type).encode(value);
    } catch (IOException e) {
      throw new CodecException("cannot encode a " + type.getTypeName() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Object decodeValue(byte[] bytes, Type type) {
    try {
      return valueCodec(type).decode(bytes);
    } catch (IOException e) {
      throw new CodecException("cannot decode a " + type.getTypeName() + ": " + e.getMessage(), e);
    }
  }

  private ValueCodec valueCodec(Type type) {
    // Most services pass one or two types over and over: the last one answers without hashing.
    // A record with final fields is safe to publish through a plain field.
    LastValueCodec last = lastValueCodec;
    if (last != null && last.type() == type) {
      return last.codec();
    }
    ValueCodec codec = valueCodecs.get(type);
    if (codec == null) {
      codec = valueCodecs.computeIfAbsent(type, this::newValueCodec);
    }
    lastValueCodec = new LastValueCodec(type, codec);
    return codec;
  }

  private record LastValueCodec(Type type, ValueCodec codec) {}

  private ValueCodec newValueCodec(Type type) {
    if (recordCodecs && type instanceof Class<?> c) {
      Optional<RecordCodec> generated = RecordCodec.forType(c, mapper);
      if (generated.isPresent()) {
        return generated.get();
      }
    }
    JavaType javaType = mapper.getTypeFactory().constructType(type);
    return new DatabindCodec(mapper.writerFor(javaType), mapper.readerFor(javaType));
  }

  /** Databind's reader and writer for one declared type, resolved once. */
  private record DatabindCodec(ObjectWriter writer, ObjectReader reader) implements ValueCodec {
    @Override
    public byte[] encode(Object value) throws IOException {
      return writer.writeValueAsBytes(value);
    }

    @Override
    public Object decode(byte[] bytes) throws IOException {
      return reader.readValue(bytes);
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
