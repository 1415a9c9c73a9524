package dev.tether.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.dataformat.smile.SmileGenerator;
import dev.tether.spi.CodecException;
import java.lang.reflect.Type;
import java.util.List;
import org.junit.jupiter.api.Test;

class JacksonCodecTest {
  record Item(String name, long quantity, byte[] blob) {}

  record Order(String customer, List<Item> items) {}

  private final JacksonCodec codec = new JacksonCodec();

  private static Type listOfItems() throws Exception {
    return JacksonCodecTest.class.getDeclaredMethod("items").getGenericReturnType();
  }

  @SuppressWarnings("unused")
  private static List<Item> items() {
    return List.of();
  }

  @Test
  void recordWithNestedListRoundTrips() {
    Order order =
        new Order(
            "ada",
            List.of(new Item("bolt", 3, new byte[] {1, 2}), new Item("nut", 5, new byte[0])));
    Order back = (Order) codec.decodeValue(codec.encodeValue(order, Order.class), Order.class);
    assertThat(back.customer()).isEqualTo("ada");
    assertThat(back.items()).extracting(Item::name).containsExactly("bolt", "nut");
    assertThat(back.items().get(0).blob()).containsExactly(1, 2);
  }

  @Test
  void valuesFromAPeerThatSharesFieldNamesAreDecoded() throws Exception {
    // A peer whose Smile writer back-references repeated field names (Smile's default) must still
    // be understood, although this codec writes every name out.
    ObjectMapper sharing =
        new ObjectMapper(
            SmileFactory.builder().enable(SmileGenerator.Feature.CHECK_SHARED_NAMES).build());
    List<Item> items = List.of(new Item("a", 1, new byte[] {9}), new Item("b", 2, new byte[] {8}));
    byte[] shared = sharing.writeValueAsBytes(items);

    @SuppressWarnings("unchecked")
    List<Item> back = (List<Item>) codec.decodeValue(shared, listOfItems());
    assertThat(back).extracting(Item::name).containsExactly("a", "b");
    assertThat(back.get(1).blob()).containsExactly(8);
  }

  @Test
  void byteArraysTravelAsRawBytesNotSevenBitPacked() {
    byte[] blob = new byte[700];
    byte[] encoded = codec.encodeValue(new Item("x", 0, blob), Item.class);
    // 7-bit packing would need 800 bytes for the blob alone.
    assertThat(encoded.length).isLessThan(760);
  }

  @Test
  void argumentsRoundTripInOrder() {
    Type[] types = {String.class, long.class};
    Object[] back = codec.decodeArguments(codec.encodeArguments(new Object[] {"ada", 42L}), types);
    assertThat(back).containsExactly("ada", 42L);
  }

  @Test
  void tooFewArgumentsIsACodecError() {
    byte[] one = codec.encodeArguments(new Object[] {"ada"});
    assertThatThrownBy(() -> codec.decodeArguments(one, new Type[] {String.class, long.class}))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("expected 2 arguments, got 1");
  }
}
