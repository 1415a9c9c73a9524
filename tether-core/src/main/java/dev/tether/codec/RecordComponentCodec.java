package dev.tether.codec;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.Locale;

/**
 * How one component of a record travels in a {@link RecordCodec}: its field name, encoded once, its
 * accessor as a method handle typed to avoid boxing, and a streaming read and write for its kind;
 * components of other types go through databind's reader and writer for their type.
 */
final class RecordComponentCodec {
  /** The kinds written and read straight on the stream; OTHER delegates to databind. */
  private enum Kind {
    LONG,
    INT,
    DOUBLE,
    BOOLEAN,
    STRING,
    BYTES,
    OTHER
  }

  private final String name;
  private final SerializedString wireName;
  private final Kind kind;

  /** The accessor, typed {@code (Object) -> long | int | double | boolean | Object} by kind. */
  private final MethodHandle accessor;

  /** Non-null only for OTHER. */
  private final ObjectWriter writer;

  /** Non-null only for OTHER. */
  private final ObjectReader reader;

  private RecordComponentCodec(
      String name, Kind kind, MethodHandle accessor, ObjectWriter writer, ObjectReader reader) {
    this.name = name;
    this.wireName = new SerializedString(name);
    this.kind = kind;
    this.accessor = accessor;
    this.writer = writer;
    this.reader = reader;
  }

  static RecordComponentCodec of(
      RecordComponent component, MethodHandles.Lookup lookup, ObjectMapper mapper)
      throws IllegalAccessException {
    Class<?> type = component.getType();
    Kind kind = kindOf(type);
    Class<?> handleResult = type.isPrimitive() && kind != Kind.OTHER ? type : Object.class;
    MethodHandle accessor =
        lookup
            .unreflect(component.getAccessor())
            .asType(MethodType.methodType(handleResult, Object.class));
    if (kind != Kind.OTHER) {
      return new RecordComponentCodec(component.getName(), kind, accessor, null, null);
    }
    var javaType = mapper.getTypeFactory().constructType(component.getGenericType());
    return new RecordComponentCodec(
        component.getName(),
        kind,
        accessor,
        mapper.writerFor(javaType),
        mapper.readerFor(javaType));
  }

  private static Kind kindOf(Class<?> type) {
    if (type == long.class) {
      return Kind.LONG;
    } else if (type == int.class) {
      return Kind.INT;
    } else if (type == double.class) {
      return Kind.DOUBLE;
    } else if (type == boolean.class) {
      return Kind.BOOLEAN;
    } else if (type == String.class) {
      return Kind.STRING;
    } else if (type == byte[].class) {
      return Kind.BYTES;
    }
    return Kind.OTHER;
  }

  String name() {
    return name;
  }

  SerializedString wireName() {
    return wireName;
  }

  /** What the constructor gets when the field is missing or null: databind's defaults. */
  Object defaultValue() {
    return switch (kind) {
      case LONG -> 0L;
      case INT -> 0;
      case DOUBLE -> 0.0;
      case BOOLEAN -> false;
      case STRING, BYTES, OTHER -> null;
    };
  }

  /**
   * Whether {@link SmileRecordEncoding} can write and read this component: a long, int, boolean,
   * String or byte[].
   */
  boolean isScalar() {
    return kind != Kind.DOUBLE && kind != Kind.OTHER;
  }

  boolean takesBoolean() {
    return kind == Kind.BOOLEAN;
  }

  boolean takesString() {
    return kind == Kind.STRING;
  }

  boolean takesBytes() {
    return kind == Kind.BYTES;
  }

  /**
   * A number read for this component, boxed as the constructor takes it, or UNSUPPORTED_VALUE when
   * it does not fit.
   */
  Object number(long value) {
    if (kind == Kind.LONG) {
      return value;
    }
    if (kind == Kind.INT && value == (int) value) {
      return (int) value;
    }
    return SmileReader.UNSUPPORTED_VALUE;
  }

  /**
   * Writes this component's value of {@code record} by hand (a scalar component only); false when
   * it needs Jackson.
   */
  boolean writeSmile(SmileWriter out, Object record) {
    try {
      switch (kind) {
        case LONG -> out.number((long) accessor.invokeExact(record));
        case INT -> out.number((int) accessor.invokeExact(record));
        case BOOLEAN -> out.bool((boolean) accessor.invokeExact(record));
        case STRING -> {
          String value = (String) (Object) accessor.invokeExact(record);
          if (value == null) {
            out.nullValue();
          } else {
            return out.string(value);
          }
        }
        case BYTES -> {
          byte[] value = (byte[]) (Object) accessor.invokeExact(record);
          if (value == null) {
            out.nullValue();
          } else {
            out.binary(value);
          }
        }
        case DOUBLE, OTHER -> throw new IllegalStateException(name + " is not a scalar component");
      }
      return true;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("the accessor of " + name + " failed: " + e, e);
    }
  }

  /** Writes this component's value of {@code record}; the field name is already written. */
  void write(JsonGenerator generator, Object record) throws IOException {
    try {
      switch (kind) {
        case LONG -> generator.writeNumber((long) accessor.invokeExact(record));
        case INT -> generator.writeNumber((int) accessor.invokeExact(record));
        case DOUBLE -> generator.writeNumber((double) accessor.invokeExact(record));
        case BOOLEAN -> generator.writeBoolean((boolean) accessor.invokeExact(record));
        case STRING -> generator.writeString((String) (Object) accessor.invokeExact(record));
        case BYTES -> writeBytes(generator, (byte[]) (Object) accessor.invokeExact(record));
        case OTHER -> writer.writeValue(generator, (Object) accessor.invokeExact(record));
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IOException("the accessor of " + name + " failed: " + e, e);
    }
  }

  private static void writeBytes(JsonGenerator generator, byte[] bytes) throws IOException {
    if (bytes == null) {
      generator.writeNull();
    } else {
      generator.writeBinary(bytes);
    }
  }

  /**
   * A String as databind reads one: binary becomes its Base64 text, as databind's string
   * deserializer makes it (the parser's own {@code getValueAsString} gives null there).
   */
  private static String readString(JsonParser parser) throws IOException {
    if (parser.currentToken() == JsonToken.VALUE_EMBEDDED_OBJECT
        && parser.getEmbeddedObject() instanceof byte[] binary) {
      return Base64Variants.getDefaultVariant().encode(binary, false);
    }
    return parser.getValueAsString();
  }

  /** Reads this component's value at the parser's current (non-null) token. */
  Object read(JsonParser parser) throws IOException {
    if (kind != Kind.OTHER && parser.currentToken().isStructStart()) {
      throw new IOException(
          "field "
              + name
              + " holds "
              + parser.currentToken()
              + ", not a "
              + kind.name().toLowerCase(Locale.ROOT));
    }
    return switch (kind) {
      case LONG -> parser.getValueAsLong();
      case INT -> parser.getValueAsInt();
      case DOUBLE -> parser.getValueAsDouble();
      case BOOLEAN -> parser.getValueAsBoolean();
      case STRING -> readString(parser);
      case BYTES -> parser.getBinaryValue();
      case OTHER -> reader.readValue(parser);
    };
  }
}
