package dev.tether.bench;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import dev.tether.testkit.JsonLikeText;
import java.util.Arrays;
import java.util.List;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * The two candidates for {@code -z}, side by side in one run: zstd-jni and lz4-java on 4 KiB and
 * 256 KiB of JSON-like text; prints compression ratio and compress / decompress throughput (MB/s of
 * uncompressed bytes, median of 5 timed rounds after warm-up; each round bounded at ~300 ms). Run
 * with {@code java -cp tether-bench/target/tether-bench.jar dev.tether.bench.CompressionCodecs}.
 */
public final class CompressionCodecs {
  private static final int ROUNDS = 5;
  private static final long ROUND_NANOS = 300_000_000L;

  /** One way to compress and decompress a whole body, with reusable state. */
  private interface Candidate {
    String name();

    /** Compresses {@code src} into {@code dst}; returns the compressed length. */
    int compress(byte[] src, byte[] dst);

    /** Decompresses {@code src[0..length)} into {@code dst}, whose size is the original's. */
    void decompress(byte[] src, int length, byte[] dst);

    int maxCompressed(int length);
  }

  private record ZstdCandidate(int level, ZstdCompressCtx cctx, ZstdDecompressCtx dctx)
      implements Candidate {
    static ZstdCandidate level(int level) {
      ZstdCompressCtx c = new ZstdCompressCtx();
      c.setLevel(level);
      return new ZstdCandidate(level, c, new ZstdDecompressCtx());
    }

    public String name() {
      return "zstd-jni level " + level;
    }

    public int compress(byte[] src, byte[] dst) {
      return cctx.compressByteArray(dst, 0, dst.length, src, 0, src.length);
    }

    public void decompress(byte[] src, int length, byte[] dst) {
      dctx.decompressByteArray(dst, 0, dst.length, src, 0, length);
    }

    public int maxCompressed(int length) {
      return (int) Zstd.compressBound(length);
    }
  }

  /**
   * The safe decompressor: the "fast" one trusts the input's lengths, which a peer's frame must not
   * be.
   */
  private record Lz4Candidate(
      String name, LZ4Compressor compressor, LZ4SafeDecompressor decompressor)
      implements Candidate {
    public int compress(byte[] src, byte[] dst) {
      return compressor.compress(src, 0, src.length, dst, 0, dst.length);
    }

    public void decompress(byte[] src, int length, byte[] dst) {
      decompressor.decompress(src, 0, length, dst, 0, dst.length);
    }

    public int maxCompressed(int length) {
      return compressor.maxCompressedLength(length);
    }
  }

  public static void main(String[] args) {
    LZ4Factory lz4 = LZ4Factory.fastestInstance();
    List<Candidate> candidates =
        List.of(
            ZstdCandidate.level(1),
            ZstdCandidate.level(3),
            new Lz4Candidate(
                "lz4-java fast (" + lz4 + ")", lz4.fastCompressor(), lz4.safeDecompressor()),
            new Lz4Candidate("lz4-java high 9", lz4.highCompressor(9), lz4.safeDecompressor()));
    System.out.printf(
        "%-44s %8s %8s %14s %16s%n", "codec", "input", "ratio", "compress MB/s", "decompress MB/s");
    for (int size : new int[] {4 * 1024, 256 * 1024}) {
      byte[] text = JsonLikeText.generate(size, 42);
      for (Candidate c : candidates) {
        measure(c, text);
      }
    }
  }

  private static void measure(Candidate c, byte[] text) {
    byte[] packed = new byte[c.maxCompressed(text.length)];
    byte[] unpacked = new byte[text.length];
    int length = c.compress(text, packed);
    c.decompress(packed, length, unpacked);
    if (!Arrays.equals(text, unpacked)) {
      throw new AssertionError(c.name() + " did not round-trip");
    }
    timeRound(() -> c.compress(text, packed)); // warm-up
    timeRound(() -> c.decompress(packed, length, unpacked));
    double[] compress = new double[ROUNDS];
    double[] decompress = new double[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
      compress[i] = text.length / timeRound(() -> c.compress(text, packed)) * 1e3;
      decompress[i] = text.length / timeRound(() -> c.decompress(packed, length, unpacked)) * 1e3;
    }
    System.out.printf(
        "%-44s %7dK %8.2f %14.0f %16.0f%n",
        c.name(),
        text.length / 1024,
        (double) text.length / length,
        median(compress),
        median(decompress));
  }

  /** Nanoseconds per operation over one bounded round. */
  private static double timeRound(Runnable op) {
    long start = System.nanoTime();
    long end = start + ROUND_NANOS;
    long ops = 0;
    long now;
    do {
      for (int i = 0; i < 16; i++) {
        op.run();
      }
      ops += 16;
      now = System.nanoTime();
    } while (now < end);
    return (double) (now - start) / ops;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
