package dev.tether.codec;

import dev.tether.Tether;
import dev.tether.codec.TypedBodyJazzerTest.Account;
import dev.tether.codec.TypedBodyJazzerTest.Order;
import dev.tether.codec.TypedBodyJazzerTest.Shop;
import dev.tether.spi.Codec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes the seed corpus of {@link TypedBodyJazzerTest}: bodies the default codec writes for each
 * operation, followed by the byte that picks the operation. Run from tether-core with the test
 * class path; the files are checked in.
 */
final class TypedBodySeeds {
  private static final Path DIR =
      Path.of(
          "src/test/resources/dev/tether/codec/TypedBodyJazzerTestInputs/"
              + "bodyDecodesToValuesThatReencodeOrFailsWithCodecException");

  private TypedBodySeeds() {}

  public static void main(String[] args) throws IOException {
    Codec codec = Tether.standardCodec();
    OperationTable shop = OperationTable.of(Shop.class);
    Account account = new Account(-5, 70_000, true, "ada", "key".getBytes(StandardCharsets.UTF_8));
    Account wide = new Account(Long.MIN_VALUE, -1, false, "Grüße 世界", new byte[0]);
    Order order = new Order("o-1", List.of("a", "b"), Map.of("a", 2), 9.5, account);
    Files.createDirectories(DIR);
    write("put", shop.forName("put").encodeArguments(codec, new Object[] {account}), 0);
    write("put-wide", shop.forName("put").encodeArguments(codec, new Object[] {wide}), 0);
    write("place", shop.forName("place").encodeArguments(codec, new Object[] {order}), 1);
    write(
        "update", shop.forName("update").encodeArguments(codec, new Object[] {"k", 3, account}), 2);
    write("list", shop.forName("list").encodeResult(codec, List.of(account, wide)), 3);
  }

  private static void write(String name, byte[] body, int operation) throws IOException {
    byte[] seed = java.util.Arrays.copyOf(body, body.length + 1);
    seed[body.length] = (byte) operation;
    Files.write(DIR.resolve(name), seed);
  }
}
