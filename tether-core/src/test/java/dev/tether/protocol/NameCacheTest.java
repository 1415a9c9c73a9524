package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NameCacheTest {
  private final NameCache cache = new NameCache();

  private String lookup(byte[] bytes) {
    ByteBuf in = Unpooled.wrappedBuffer(bytes);
    return cache.lookup(in, 0, bytes.length, "REQUEST.operation");
  }

  private String lookup(String name) {
    return lookup(name.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The name as in a frame, with more of the frame after it (then names of up to 8 bytes are read
   * as one long).
   */
  private String lookupFollowedBy(String name, String rest) {
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    ByteBuf in = Unpooled.wrappedBuffer(bytes, rest.getBytes(StandardCharsets.UTF_8));
    return cache.lookup(in, 0, bytes.length, "REQUEST.operation");
  }

  @Test
  void aNameReceivedAgainIsTheSameString() {
    String first = lookup("withdraw");
    String second = lookup("withdraw");
    assertThat(second).isEqualTo("withdraw").isSameAs(first);
  }

  @Test
  void namesThatDifferInOneByteAreNeverConfused() {
    // 32 slots and hundreds of near-identical names: collisions are certain, mix-ups must not be.
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 300; i++) {
        assertThat(lookup("op" + i)).isEqualTo("op" + i);
      }
    }
  }

  @Test
  void shortNamesInAFrameAreTheSameStringAgainWhateverFollowsThem() {
    String first = lookupFollowedBy("echo", "12345678");
    assertThat(lookupFollowedBy("echo", "abcdefgh")).isEqualTo("echo").isSameAs(first);
    assertThat(lookupFollowedBy("withdraw", "!!!!!!!!"))
        .isEqualTo("withdraw"); // 8 bytes: the whole long
    assertThat(lookupFollowedBy("withdraw", "????????"))
        .isSameAs(lookupFollowedBy("withdraw", "--------"));
  }

  @Test
  void shortNamesThatDifferOnlyInLengthOrInOneByteAreNeverConfused() {
    // A leading zero byte leaves the long the same: the length tells "ab" from "\0ab".
    assertThat(lookupFollowedBy("ab", "zzzzzzzz")).isEqualTo("ab");
    assertThat(lookupFollowedBy("\0ab", "zzzzzzzz")).isEqualTo("\0ab");
    assertThat(lookupFollowedBy("ab", "zzzzzzzz")).isEqualTo("ab");
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 300; i++) {
        assertThat(lookupFollowedBy("op" + i, "restrest")).isEqualTo("op" + i);
      }
    }
  }

  @Test
  void invalidUtf8InAShortNameIsRefusedEveryTimeItArrives() {
    byte[] invalid = {'o', 'p', (byte) 0xC3, 'x', 'x', 'x', 'x', 'x', 'x'};
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(
              () -> cache.lookup(Unpooled.wrappedBuffer(invalid), 0, 3, "REQUEST.operation"))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("REQUEST.operation");
    }
  }

  @Test
  void nonAsciiNamesRoundTrip() {
    assertThat(lookup("überweisen")).isEqualTo("überweisen");
    assertThat(lookup("überweisen")).isEqualTo("überweisen");
  }

  @Test
  void invalidUtf8IsRefusedEveryTimeItArrives() {
    byte[] invalid = {'o', 'p', (byte) 0xC3};
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> lookup(invalid))
          .isInstanceOf(ProtocolException.class)
          .hasMessageContaining("REQUEST.operation");
    }
  }

  @Test
  void namesOverTheLengthLimitAreDecodedEachTime() {
    String longName = "x".repeat(NameCache.MAX_CACHED_LENGTH + 1);
    String first = lookup(longName);
    String second = lookup(longName);
    assertThat(second).isEqualTo(longName).isNotSameAs(first);
  }

  @Test
  void serverDecoderGivesRepeatedRequestsTheSameNameInstances() {
    try (DecoderHarness harness = new DecoderHarness(FrameDecoder.Side.SERVER).handshake()) {
      Request one = new Request(1, 0, "bank", "withdraw", 0, Map.of(), new byte[0]);
      Request two = new Request(2, 0, "bank", "withdraw", 0, Map.of(), new byte[0]);
      harness.feed(DecoderHarness.encode(one, two));
      var frames = harness.frames();
      Request a = (Request) frames.get(0);
      Request b = (Request) frames.get(1);
      assertThat(b.service()).isEqualTo("bank").isSameAs(a.service());
      assertThat(b.operation()).isEqualTo("withdraw").isSameAs(a.operation());
    }
  }
}
