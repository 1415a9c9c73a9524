package dev.tether.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Optional;

/**
 * One record type's codec on Jackson's streaming API, prepared at first use: field names encoded
 * once, components read through method handles, the canonical constructor called through one. It
 * writes the Smile object Jackson databind writes for the record (every component by name, in
 * declaration order, nulls included) and reads any such object, in any field order, skipping
 * unknown fields and leaving missing ones at zero or null, as databind does. Records that Jackson
 * annotations or extra getters would make databind treat differently are not taken ({@link
 * #forType}). Records of longs, ints, booleans, Strings and byte arrays take {@link
 * SmileRecordEncoding}, a hand-written subset of Smile, first; the streaming path handles what it
 * does not.
 */
final class RecordCodec implements ValueCodec {
  private final JsonFactory factory;
  private final RecordComponentCodec[] components;

  /** The canonical constructor as {@code (Object[]) -> Object}. */
  private final MethodHandle constructor;

  /** Each component's value when its field is missing or null: zero for primitives. */
  private final Object[] defaults;

  /** The hand-written path for records of scalar components; null for others. */
  private final SmileRecordEncoding smile;

  private RecordCodec(
      JsonFactory factory, RecordComponentCodec[] components, MethodHandle constructor) {
    this.factory = factory;
    this.components = components;
    this.constructor = constructor;
    this.defaults = Arrays.stream(components).map(RecordComponentCodec::defaultValue).toArray();
    this.smile = SmileRecordEncoding.of(components);
  }

  /**
   * The codec of {@code type} when it is a record this class can write as databind would, with
   * {@code mapper} for the components of other types; empty otherwise.
   */
  static Optional<RecordCodec> forType(Class<?> type, ObjectMapper mapper) {
    if (!type.isRecord() || hasJacksonAnnotations(type) || hasExtraGetters(type)) {
      return Optional.empty();
    }
    try {
      JacksonCodec.class.getModule().addReads(type.getModule());
      MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(type, MethodHandles.lookup());
      RecordComponent[] recordComponents = type.getRecordComponents();
      RecordComponentCodec[] components = new RecordComponentCodec[recordComponents.length];
      Class<?>[] parameterTypes = new Class<?>[recordComponents.length];
      for (int i = 0; i < recordComponents.length; i++) {
        components[i] = RecordComponentCodec.of(recordComponents[i], lookup, mapper);
        parameterTypes[i] = recordComponents[i].getType();
      }
      Constructor<?> canonical = type.getDeclaredConstructor(parameterTypes);
      MethodHandle constructor =
          lookup
              .unreflectConstructor(canonical)
              .asSpreader(Object[].class, parameterTypes.length)
              .asType(MethodType.methodType(Object.class, Object[].class));
      return Optional.of(new RecordCodec(mapper.getFactory(), components, constructor));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Optional.empty(); // not accessible from here: databind gets its chance
    }
  }

  private static boolean hasJacksonAnnotations(Class<?> type) {
    if (isJackson(type.getAnnotations())) {
      return true;
    }
    for (RecordComponent component : type.getRecordComponents()) {
      if (isJackson(component.getAnnotations())
          || isJackson(component.getAccessor().getAnnotations())) {
        return true;
      }
    }
    for (Constructor<?> constructor : type.getDeclaredConstructors()) {
      if (isJackson(constructor.getAnnotations())) {
        return true;
      }
    }
    return false;
  }

  private static boolean isJackson(Annotation[] annotations) {
    for (Annotation annotation : annotations) {
      if (annotation.annotationType().getName().startsWith("com.fasterxml.jackson.")) {
        return true;
      }
    }
    return false;
  }

  /**
   * A public {@code getX()} or {@code isX()} beside the components would be one more property to
   * databind.
   */
  private static boolean hasExtraGetters(Class<?> type) {
    for (Method method : type.getDeclaredMethods()) {
      String name = method.getName();
      boolean getterName =
          name.startsWith("get") && name.length() > 3 || name.startsWith("is") && name.length() > 2;
      if (getterName
          && method.getParameterCount() == 0
          && Modifier.isPublic(method.getModifiers())
          && !Modifier.isStatic(method.getModifiers())
          && !isAccessor(type, method)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isAccessor(Class<?> type, Method method) {
    for (RecordComponent component : type.getRecordComponents()) {
      if (component.getAccessor().equals(method)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public byte[] encode(Object value) throws IOException {
    byte[] handWritten = smile != null && value != null ? smile.encode(value) : null;
    return handWritten != null ? handWritten : encodeWithJackson(value);
  }

  private byte[] encodeWithJackson(Object value) throws IOException {
    // As ObjectMapper.writeValueAsBytes does: buffers come from the factory's recycler pool.
    BufferRecycler recycler = factory._getBufferRecycler();
    try (ByteArrayBuilder bytes = new ByteArrayBuilder(recycler)) {
      try (JsonGenerator generator = factory.createGenerator(bytes)) {
        write(generator, value);
      }
      byte[] encoded = bytes.toByteArray();
      bytes.release();
      return encoded;
    } finally {
      recycler.releaseToPool();
    }
  }

  private void write(JsonGenerator generator, Object value) throws IOException {
    if (value == null) {
      generator.writeNull();
      return;
    }
    generator.writeStartObject();
    for (RecordComponentCodec component : components) {
      generator.writeFieldName(component.wireName());
      component.write(generator, value);
    }
    generator.writeEndObject();
  }

  @Override
  public Object decode(byte[] bytes) throws IOException {
    Object[] handRead = smile != null ? smile.decode(bytes, defaults) : null;
    return handRead != null ? construct(handRead) : decodeWithJackson(bytes);
  }

  private Object decodeWithJackson(byte[] bytes) throws IOException {
    try (JsonParser parser = factory.createParser(bytes)) {
      JsonToken first = parser.nextToken();
      if (first == JsonToken.VALUE_NULL) {
        return null;
      }
      if (first != JsonToken.START_OBJECT) {
        throw new IOException("expected an object, got " + first);
      }
      Object[] arguments = defaults.clone();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        int index = indexOf(parser.currentName());
        JsonToken valueToken = parser.nextToken();
        if (valueToken == null) {
          // The document ended after a field name (a second Smile header there ends it for the
          // parser): refused as databind refuses it, rather than reading a null token.
          throw new IOException("field " + parser.currentName() + " has no value: the body ends");
        }
        if (index < 0) {
          parser.skipChildren(); // an unknown field, as databind ignores it here
        } else {
          // The last value of a repeated field wins, a null one too (as the default), as in
          // databind.
          arguments[index] =
              valueToken == JsonToken.VALUE_NULL ? defaults[index] : components[index].read(parser);
        }
      }
      return construct(arguments);
    }
  }

  /** The component called {@code name}; names are few, so a scan beats hashing. */
  private int indexOf(String name) {
    for (int i = 0; i < components.length; i++) {
      if (components[i].name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private Object construct(Object[] arguments) throws IOException {
    try {
      return (Object) constructor.invokeExact(arguments);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IOException("the constructor of a record failed: " + e, e);
    }
  }
}
