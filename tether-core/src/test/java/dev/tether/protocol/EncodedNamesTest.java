package dev.tether.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EncodedNamesTest {
  private final EncodedNames names = new EncodedNames();

  private byte[] throughCache(String name) {
    ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer();
    try {
      names.write(out, name);
      return ByteBufUtil.getBytes(out);
    } finally {
      out.release();
    }
  }

  private static byte[] uncached(String name) {
    ByteBuf out = Unpooled.buffer();
    PayloadWriter.writeString(out, name);
    return ByteBufUtil.getBytes(out);
  }

  @Test
  void aCachedNameIsWrittenAsTheSameBytesAsAnUncachedOne() {
    for (String name :
        new String[] {
          "echo",
          "überweisen",
          "名前",
          "lone\uD800surrogate",
          "",
          "x".repeat(NameCache.MAX_CACHED_LENGTH),
          "x".repeat(NameCache.MAX_CACHED_LENGTH + 1)
        }) {
      assertThat(throughCache(name)).as(name).isEqualTo(uncached(name));
      assertThat(throughCache(name)).as(name + ", from the cache").isEqualTo(uncached(name));
    }
  }

  @Test
  void namesThatShareASlotAreNeverConfused() {
    // 32 slots and hundreds of names: collisions are certain, mix-ups must not be.
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 300; i++) {
        assertThat(throughCache("op" + i)).isEqualTo(uncached("op" + i));
      }
    }
  }

  @Test
  void anEqualNameInAnotherStringInstanceIsWrittenTheSame() {
    String built = new StringBuilder("with").append("draw").toString();
    throughCache("withdraw");
    assertThat(throughCache(built)).isEqualTo(uncached("withdraw"));
  }

  @Test
  void aRequestEncodedThroughTheCacheIsByteIdenticalToOneWithout() {
    byte[] body = {1, 2, 3};
    ByteBuf plain = Unpooled.buffer();
    ByteBuf cached = Unpooled.buffer();
    FrameWriter.encodeRequest(
        7, Request.IDEMPOTENT, "accounts", "überweisen", 250, Map.of("k", "v"), body, plain);
    for (int i = 0; i < 2; i++) {
      cached.clear();
      FrameWriter.encodeRequest(
          7,
          Request.IDEMPOTENT,
          "accounts",
          "überweisen",
          250,
          Map.of("k", "v"),
          body,
          names,
          cached);
      assertThat(ByteBufUtil.getBytes(cached)).isEqualTo(ByteBufUtil.getBytes(plain));
    }
  }

  @Test
  void aShortNameFillsABufferWithNoRoomToSpare() {
    byte[] expected = uncached("echo");
    throughCache("echo");
    ByteBuf exact = Unpooled.buffer(expected.length, expected.length);
    names.write(exact, "echo");
    assertThat(ByteBufUtil.getBytes(exact)).isEqualTo(expected);
  }

  @Test
  void whatFollowsAShortNameIsWrittenOverTheBytesStoredPastIt() {
    ByteBuf out = Unpooled.buffer(64);
    for (int i = 0; i < 2; i++) {
      out.clear();
      names.write(out, "get");
      names.write(out, "abcdefg");
      out.writeByte(42);
      ByteBuf expected = Unpooled.buffer();
      PayloadWriter.writeString(expected, "get");
      PayloadWriter.writeString(expected, "abcdefg");
      expected.writeByte(42);
      assertThat(ByteBufUtil.getBytes(out)).isEqualTo(ByteBufUtil.getBytes(expected));
    }
  }
}
