package dev.tether.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.dataformat.smile.SmileGenerator;
import com.fasterxml.jackson.dataformat.smile.SmileParser;
import dev.tether.spi.CodecException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The default codec's per-record path: the wire stays what databind writes and reads. */
class RecordCodecTest {
  record Message(long id, String name, byte[] data) {}

  record Mixed(int count, double ratio, boolean flag, List<Message> nested) {}

  record Scalars(long wide, int narrow, boolean flag, String text, byte[] blob) {}

  record Renamed(@JsonProperty("n") String name) {}

  private final JacksonCodec codec = new JacksonCodec();

  /** A peer with the default codec's Smile settings, using databind alone. */
  private final ObjectMapper peer =
      new ObjectMapper(
              SmileFactory.builder()
                  .enable(SmileGenerator.Feature.WRITE_HEADER)
                  .disable(SmileGenerator.Feature.ENCODE_BINARY_AS_7BIT)
                  .disable(SmileGenerator.Feature.CHECK_SHARED_NAMES)
                  .disable(SmileParser.Feature.REQUIRE_HEADER)
                  .build())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  @Test
  void plainRecordsTakeTheStreamingPathAndAnnotatedOnesStayWithDatabind() {
    assertThat(RecordCodec.forType(Message.class, peer)).isPresent();
    assertThat(RecordCodec.forType(Mixed.class, peer)).isPresent();
    assertThat(RecordCodec.forType(Renamed.class, peer)).isEmpty();
    assertThat(RecordCodec.forType(String.class, peer)).isEmpty();
  }

  @Test
  void aRecordIsWrittenByteForByteAsDatabindWritesIt() throws Exception {
    Message message = new Message(7, "ada", new byte[] {1, 2, 3});
    Mixed mixed = new Mixed(3, 0.5, true, List.of(message));

    assertThat(codec.encodeValue(message, Message.class))
        .isEqualTo(peer.writeValueAsBytes(message));
    assertThat(codec.encodeValue(mixed, Mixed.class)).isEqualTo(peer.writeValueAsBytes(mixed));
    assertThat(codec.encodeValue(null, Message.class)).isEqualTo(peer.writeValueAsBytes(null));
  }

  @Test
  void numbersStringsAndBinariesOfEverySizeAreWrittenAsJacksonWritesThemAndReadBack()
      throws Exception {
    long[] longs = {
      0,
      1,
      -1,
      15,
      -16,
      16,
      -17,
      31,
      32,
      63,
      64,
      8191,
      8192,
      -100_000,
      Integer.MAX_VALUE,
      Integer.MIN_VALUE,
      Integer.MAX_VALUE + 1L,
      Integer.MIN_VALUE - 1L,
      0x7E7E_0000_0001L,
      Long.MAX_VALUE,
      Long.MIN_VALUE
    };
    String[] texts = {
      "",
      "a",
      "x".repeat(32),
      "x".repeat(33),
      "x".repeat(64),
      "x".repeat(65),
      "\u00e9t\u00e9",
      "\u00e9".repeat(40),
      null
    };
    int[] blobSizes = {0, 1, 63, 64, 127, 128, 8191, 8192, 70_000};
    for (int i = 0; i < Math.max(longs.length, Math.max(texts.length, blobSizes.length)); i++) {
      long wide = longs[i % longs.length];
      Scalars value =
          new Scalars(
              wide,
              (int) wide,
              i % 2 == 0,
              texts[i % texts.length],
              new byte[blobSizes[i % blobSizes.length]]);

      byte[] encoded = codec.encodeValue(value, Scalars.class);
      Scalars back = (Scalars) codec.decodeValue(peer.writeValueAsBytes(value), Scalars.class);

      assertThat(encoded).as("value %d", i).isEqualTo(peer.writeValueAsBytes(value));
      // The blob as one array: a recursive comparison walks it byte by byte (seconds for 70 KB).
      assertThat(back.blob()).as("blob of value %d", i).isEqualTo(value.blob());
      assertThat(back)
          .usingRecursiveComparison()
          .ignoringFields("blob")
          .as("value %d", i)
          .isEqualTo(value);
    }
  }

  @Test
  void fieldsInAnyOrderAreReadUnknownOnesSkippedMissingOnesZeroOrNull() throws Exception {
    Map<String, Object> shuffled = new LinkedHashMap<>();
    shuffled.put("data", new byte[] {9});
    shuffled.put("extra", Map.of("id", 99, "deep", List.of(1, 2)));
    shuffled.put("name", "bob");
    Map<String, Object> sparse = Map.of("name", "eve");

    Message back = (Message) codec.decodeValue(peer.writeValueAsBytes(shuffled), Message.class);
    Message partial = (Message) codec.decodeValue(peer.writeValueAsBytes(sparse), Message.class);

    assertThat(back.id()).isZero();
    assertThat(back.name()).isEqualTo("bob");
    assertThat(back.data()).containsExactly(9);
    assertThat(partial.id()).isZero();
    assertThat(partial.data()).isNull();
  }

  @Test
  void nestedComponentsAndNullsRoundTripAndAPeerReadsThem() throws Exception {
    Mixed mixed =
        new Mixed(
            3, 0.25, true, List.of(new Message(1, null, null), new Message(2, "b", new byte[0])));

    Mixed back = (Mixed) codec.decodeValue(codec.encodeValue(mixed, Mixed.class), Mixed.class);
    Mixed read = peer.readValue(codec.encodeValue(mixed, Mixed.class), Mixed.class);

    for (Mixed decoded : List.of(back, read)) {
      assertThat(decoded.count()).isEqualTo(3);
      assertThat(decoded.ratio()).isEqualTo(0.25);
      assertThat(decoded.flag()).isTrue();
      assertThat(decoded.nested()).extracting(Message::name).containsExactly(null, "b");
      assertThat(decoded.nested().get(1).data()).isEmpty();
    }
  }

  @Test
  void aRecordWithJacksonAnnotationsKeepsDatabindsMeaning() throws Exception {
    byte[] encoded = codec.encodeValue(new Renamed("ada"), Renamed.class);

    assertThat(peer.readTree(encoded).has("n")).isTrue();
    assertThat(((Renamed) codec.decodeValue(encoded, Renamed.class)).name()).isEqualTo("ada");
  }

  @Test
  void anObjectWhereAScalarBelongsIsACodecError() throws Exception {
    byte[] wrong = peer.writeValueAsBytes(Map.of("name", Map.of("first", "ada")));

    assertThatThrownBy(() -> codec.decodeValue(wrong, Message.class))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("field name holds START_OBJECT");
  }
}
