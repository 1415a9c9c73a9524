package dev.tether.protocol;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import dev.tether.ProtocolException;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Body compression for one stream connection (protocol 1.1, docs/protocol.md section 2.4): what
 * this side announces in its preface, whether the peer announced it too, and zstd contexts that
 * compress and decompress bodies. Confined to the connection's event loop; the native contexts are
 * made on first use, so a connection that never compresses costs none, and freed by {@link
 * #close()}.
 */
public final class BodyCompression implements AutoCloseable {
  /** Capability bit: this side decompresses zstd bodies. */
  public static final int ZSTD = 0x0001;

  /**
   * Bodies up to this many bytes travel as they are: compressing them saves little and costs a
   * call.
   */
  public static final int DEFAULT_THRESHOLD = 1024;

  /** zstd's fastest standard level: docs/performance.md, "Body compression", says why. */
  private static final int LEVEL = 1;

  private static final Logger log = LoggerFactory.getLogger(BodyCompression.class);
  private static final boolean AVAILABLE = loadNative();

  /**
   * A side's compression settings, from {@code tether.compression.enabled} (true: announce zstd and
   * compress) and {@code tether.compression.threshold} (bytes; bodies up to it travel as they are,
   * 1024 by default).
   */
  public record Settings(boolean enabled, int thresholdBytes) {
    public Settings {
      if (thresholdBytes < 0) {
        throw new IllegalArgumentException(
            "tether.compression.threshold must not be negative: " + thresholdBytes);
      }
    }

    /** The settings these property values give; null values take the defaults. */
    public static Settings parse(String enabled, String thresholdBytes) {
      return new Settings(
          enabled == null || Boolean.parseBoolean(enabled.trim()),
          thresholdBytes == null ? DEFAULT_THRESHOLD : Integer.parseInt(thresholdBytes.trim()));
    }

    /** Fresh state for one new connection. */
    public BodyCompression forConnection() {
      return enabled ? zstd(thresholdBytes) : disabled();
    }
  }

  private final boolean enabled;
  private final int thresholdBytes;

  /** True once the peer's preface announced {@link #ZSTD}; set on the loop, before any frame. */
  private boolean peerAccepts;

  /** The largest body decompression may produce: the receiver's maximum frame size. */
  private int maxBodyBytes = ProtocolVersion.DEFAULT_MAX_FRAME_SIZE;

  /**
   * True once {@link #close()} ran: nothing is compressed any more, so no context is made again.
   */
  private boolean closed;

  /** Null until the first body is compressed. */
  private ZstdCompressCtx compressor;

  /** Null until the first body is decompressed. */
  private ZstdDecompressCtx decompressor;

  private BodyCompression(boolean enabled, int thresholdBytes) {
    this.enabled = enabled && AVAILABLE;
    this.thresholdBytes = thresholdBytes;
  }

  /**
   * Announces zstd and compresses bodies over {@code thresholdBytes} for a peer that announced it
   * too.
   */
  public static BodyCompression zstd(int thresholdBytes) {
    if (thresholdBytes < 0) {
      throw new IllegalArgumentException(
          "a compression threshold must not be negative: " + thresholdBytes);
    }
    return new BodyCompression(true, thresholdBytes);
  }

  /** Announces nothing, never compresses, and refuses compressed bodies (a protocol error). */
  public static BodyCompression disabled() {
    return new BodyCompression(false, Integer.MAX_VALUE);
  }

  private static boolean loadNative() {
    try {
      com.github.luben.zstd.util.Native.load();
      return true;
    } catch (Throwable missing) {
      // A platform zstd-jni ships no library for: connections just announce no compression.
      log.warn("zstd native library unavailable; body compression is off: {}", missing.toString());
      return false;
    }
  }

  /** The capability bits this side writes in its preface. */
  public int capabilities() {
    return enabled ? ZSTD : 0;
  }

  /** The peer's preface carried {@code capabilities} (0 from a 1.0 peer). */
  void onPeerCapabilities(int capabilities) {
    peerAccepts = enabled && (capabilities & ZSTD) != 0;
  }

  /** True when both prefaces announced zstd: bodies may be compressed towards the peer. */
  public boolean negotiated() {
    return peerAccepts;
  }

  /**
   * {@code body} compressed as one zstd frame, or null when it should travel as it is: not
   * negotiated, not over the threshold, or compression would not make it smaller.
   */
  public byte[] compressIfWorthIt(byte[] body) {
    if (!peerAccepts || closed || body.length <= thresholdBytes) {
      return null;
    }
    if (compressor == null) {
      compressor = new ZstdCompressCtx();
      compressor.setLevel(LEVEL);
      compressor.setContentSize(
          true); // the receiver sizes its buffer from it (docs/protocol.md 2.4)
    }
    byte[] packed = compressor.compress(body);
    return packed.length < body.length ? packed : null;
  }

  /** Bounds what a compressed body may decompress to; the decoder keeps it at its frame limit. */
  void limitBodies(int maxBytes) {
    maxBodyBytes = maxBytes;
  }

  /**
   * Reads {@code length} bytes of a compressed body from {@code in} and returns the body they hold,
   * at most the receiver's maximum frame size long.
   *
   * @throws ProtocolException if this side announced no compression, or the bytes are not one whole
   *     zstd frame that declares its content size and decompresses to exactly that size
   */
  byte[] decompress(ByteBuf in, int length, String field) {
    if (!enabled) {
      in.skipBytes(length);
      throw new ProtocolException(field + ": compressed, but this side announced no compression");
    }
    byte[] packed = new byte[length];
    in.readBytes(packed);
    long size;
    try {
      size = Zstd.getFrameContentSize(packed);
    } catch (ZstdException e) {
      throw new ProtocolException(field + ": not a zstd frame: " + e.getMessage(), e);
    }
    if (size < 0) {
      throw new ProtocolException(
          field + ": not a zstd frame with a declared content size (" + size + ")");
    }
    if (size > maxBodyBytes) {
      throw new ProtocolException(
          field
              + ": decompresses to "
              + size
              + " bytes, over the maximum frame size of "
              + maxBodyBytes);
    }
    if (closed) {
      throw new ProtocolException(field + ": the connection is closed");
    }
    if (decompressor == null) {
      decompressor = new ZstdDecompressCtx();
    }
    byte[] body = new byte[(int) size];
    int written;
    try {
      written = decompressor.decompressByteArray(body, 0, body.length, packed, 0, packed.length);
    } catch (ZstdException e) {
      throw new ProtocolException(field + ": corrupt zstd body: " + e.getMessage(), e);
    }
    if (written != body.length) {
      throw new ProtocolException(
          field + ": zstd body declared " + body.length + " bytes but held " + written);
    }
    return body;
  }

  /** Frees the native contexts; the connection closed. */
  @Override
  public void close() {
    closed = true;
    if (compressor != null) {
      compressor.close();
      compressor = null;
    }
    if (decompressor != null) {
      decompressor.close();
      decompressor = null;
    }
  }
}
