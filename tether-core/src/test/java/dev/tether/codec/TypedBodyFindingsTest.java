package dev.tether.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.dataformat.smile.SmileParser;
import dev.tether.Tether;
import dev.tether.codec.TypedBodyJazzerTest.Account;
import dev.tether.spi.Codec;
import dev.tether.spi.CodecException;
import io.netty.buffer.ByteBufUtil;
import java.lang.reflect.Type;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What fuzzing the bodies of typed calls found ({@link TypedBodyJazzerTest}), pinned: the
 * hand-written Smile reader read malformed text otherwise than Jackson does, so one body meant two
 * things depending on the peer's codec (it now leaves such text to Jackson); and a second Smile
 * header inside a record (Jackson's parser ends the document there) threw NullPointerException
 * where a value belonged instead of CodecException; and a malformed field name changed how later
 * bodies' names were read (Jackson's shared name table); an INT64 VInt over 10 bytes read as
 * Long.MIN_VALUE, one under 5 bytes, and an INT32 over 32 bits, otherwise than Jackson reads them;
 * a binary length near 2^63 escaped as IllegalArgumentException (found by reading the reader while
 * minimizing the former); and binary in a String component read as null where databind reads its
 * Base64 text; a repeated field whose last value was null kept the earlier value.
 */
class TypedBodyFindingsTest {
  private static final String HEADER_AND_NAME_KEY = "3a290a04" + "fa" + "836e616d65";

  private final Codec codec = Tether.standardCodec();
  private final Codec databind =
      new JacksonCodec(
          new ObjectMapper(
                  SmileFactory.builder().disable(SmileParser.Feature.REQUIRE_HEADER).build())
              .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES));

  @Test
  void byteAboveAsciiInAnAsciiStringTokenReadsAsJacksonReadsIt() {
    // "name": a 3-byte ASCII token holding 61 92 62; it was read as Latin-1 "a\u0092b".
    byte[] body = ByteBufUtil.decodeHexDump(HEADER_AND_NAME_KEY + "42" + "619262" + "fb");

    assertThat(name(codec, body)).isEqualTo(name(databind, body)).isNotEqualTo("a\u0092b");
  }

  @Test
  void malformedUtf8InAUnicodeStringTokenReadsAsJacksonReadsIt() {
    // "name": a 3-byte Unicode token holding c3 28 41; it was read with a replacement character.
    byte[] body = ByteBufUtil.decodeHexDump(HEADER_AND_NAME_KEY + "81" + "c32841" + "fb");

    assertThat(name(codec, body)).isEqualTo(name(databind, body)).doesNotContain("\uFFFD");
  }

  @Test
  void wellFormedUnicodeStringTokenReadsTheSameEitherWay() {
    byte[] body = ByteBufUtil.decodeHexDump(HEADER_AND_NAME_KEY + "81" + "c3a941" + "fb");

    assertThat(name(codec, body)).isEqualTo("éA").isEqualTo(name(databind, body));
  }

  @Test
  void fieldWhoseValueIsASecondSmileHeaderFailsWithCodecException() {
    // Jazzer's input, minimized: '{' "id" and then, where the value belongs, a second Smile
    // header, which Jackson's parser takes for the end of the document (no token). A
    // NullPointerException escaped the codec instead, out of the server's decoding of arguments.
    byte[] body = ByteBufUtil.decodeHexDump("3a290a04" + "fa" + "816964" + "3a290a00");

    assertThatThrownBy(() -> codec.decodeValue(body, Account.class))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("id");
  }

  @Test
  void fuzzerBodyWithAHeaderInPlaceOfAValueFailsWithCodecException() {
    // Jazzer's input as found (its last byte, which picked the operation, dropped).
    byte[] body =
        ByteBufUtil.decodeHexDump(
            "3a290a04fa81696425037f7f7f7f7f7f7f7fbf8676657273696f6e3a290a04fa"
                + "6576648172 65c18561637469766522836e616d658c4772c3bcc39f6520e4b896e7958c826b65000000"
                    .replace(" ", ""));

    assertThatThrownBy(() -> codec.decodeValue(body, Account.class))
        .isInstanceOf(CodecException.class);
  }

  @Test
  void int64LongerThanTenBytesReadsAsJacksonReadsIt() {
    // Jazzer's input (last byte dropped): "id" as an INT64 whose VInt runs on for 11 bytes. The
    // hand-written reader took its "malformed" marker, -1, for a value: Long.MIN_VALUE.
    byte[] body =
        ByteBufUtil.decodeHexDump(
            "3a290a04fa81696425037f7f7f7f7f3d7f7f7fbf8676657273696f7272727272727272727272727272727272"
                + "7272727272727272727272727272727272727272726ec18561bd7f7f7f7fbf8676657273826b6579fd80fb");

    Object ours = codec.decodeValue(body, Account.class);
    Object theirs = databind.decodeValue(body, Account.class);

    assertThat(((Account) ours).id()).isEqualTo(((Account) theirs).id());
  }

  @Test
  void int64WhoseVIntIsShorterThanFiveBytesReadsAsJacksonReadsIt() {
    // Jazzer's input (last byte dropped): "id" as an INT64 of a 2-byte VInt (26 c1), which no
    // writer produces: the hand-written reader read -1217, Jackson reads four bytes regardless.
    byte[] body =
        ByteBufUtil.decodeHexDump(
            "3a290a04fa816964" + "2526c1" + "8561637469766522" + "83826b6579fd80fb");

    Object ours = codec.decodeValue(body, Account.class);
    Object theirs = databind.decodeValue(body, Account.class);

    assertThat(((Account) ours).id()).isEqualTo(((Account) theirs).id());
  }

  @Test
  void binaryValueOfAStringComponentReadsAsDatabindReadsIt() {
    // Jazzer's input, minimized: "name" holding raw binary (fd, length 2, 01 02). The streaming
    // path read null; databind reads the Base64 text of the bytes.
    byte[] body = ByteBufUtil.decodeHexDump(HEADER_AND_NAME_KEY + "fd" + "82" + "0102" + "fb");

    assertThat(name(codec, body)).isEqualTo(name(databind, body)).isEqualTo("AQI=");
  }

  @Test
  void repeatedFieldWhoseLastValueIsNullReadsAsDatabindReadsIt() {
    // Jazzer's input, minimized: "active": true, then "active": null. Both record paths kept
    // true; databind takes the last value, null, which for a boolean is false.
    byte[] body =
        ByteBufUtil.decodeHexDump(
            "3a290a04fa" + "85616374697665" + "23" + "85616374697665" + "21" + "fb");
    // The same through the streaming path: a 7-bit binary field (not the hand-written subset).
    byte[] streamed =
        ByteBufUtil.decodeHexDump(
            "3a290a00fa"
                + "85616374697665"
                + "23"
                + "85616374697665"
                + "21"
                + "826b6579"
                + "e8"
                + "80"
                + "fb");

    assertThat(((Account) codec.decodeValue(body, Account.class)).active())
        .isEqualTo(((Account) databind.decodeValue(body, Account.class)).active())
        .isFalse();
    assertThat(((Account) codec.decodeValue(streamed, Account.class)).active()).isFalse();
  }

  @Test
  void int32WhoseVIntCarriesMoreThanThirtyTwoBitsReadsAsJacksonReadsIt() {
    // Jazzer's input (last byte dropped): "id" as an INT32 whose 5-byte VInt holds 34 bits. The
    // hand-written reader read all of them (7234097504); Jackson keeps the low 32.
    byte[] body = ByteBufUtil.decodeHexDump("3a290a04fa816964" + "24" + "6b65790b80" + "fb");

    assertThat(((Account) codec.decodeValue(body, Account.class)).id())
        .isEqualTo(((Account) databind.decodeValue(body, Account.class)).id());
  }

  @Test
  void binaryLengthNearTwoToTheSixtyThreeFailsWithCodecException() {
    // "key": raw binary of length 2^63 - 16 followed by 3 bytes: position + length overflowed,
    // passed the bounds check, and Arrays.copyOfRange threw IllegalArgumentException.
    byte[] body =
        ByteBufUtil.decodeHexDump(
            "3a290a04" + "fa" + "826b6579" + "fd" + "017f7f7f7f7f7f7f7fb0" + "000000" + "fb");

    assertThatThrownBy(() -> codec.decodeValue(body, Account.class))
        .isInstanceOf(CodecException.class);
  }

  /** The field whose declared type the map tests decode. */
  static Map<String, Integer> counts;

  @Test
  void malformedFieldNameFromOnePeerDoesNotChangeHowLaterBodiesAreRead() throws Exception {
    Type mapType = TypedBodyFindingsTest.class.getDeclaredField("counts").getGenericType();
    // {"é": 1} with the name as a 2-byte Unicode key (c0 c3 a9), as any Smile writer sends it.
    byte[] wellFormed = ByteBufUtil.decodeHexDump("3a290a04" + "fa" + "c0c3a9" + "c2" + "fb");
    // The same name bytes in a 2-byte ASCII key (81 c3 a9): malformed, since c3 a9 is no ASCII.
    byte[] malformed = ByteBufUtil.decodeHexDump("3a290a04" + "fa" + "81c3a9" + "c2" + "fb");

    codec.decodeValue(malformed, mapType);

    assertThat(codec.decodeValue(wellFormed, mapType)).isEqualTo(Map.of("é", 1));
  }

  private static String name(Codec codec, byte[] body) {
    return ((Account) codec.decodeValue(body, Account.class)).name();
  }
}
