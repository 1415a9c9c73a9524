package dev.tether.grpc;

import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * gRPC's one compressed message encoding besides identity: gzip, message by message, for both sides
 * (the server's calls and {@code dev.tether.grpc.client}'s). The server runs it on the threads that
 * run service code, never on the event loop; the client compresses on the caller's thread.
 */
public final class Gzip {
  public static final String NAME = "gzip";

  private Gzip() {}

  /** Whether a {@code grpc-accept-encoding} list names gzip. */
  public static boolean acceptedBy(CharSequence acceptEncoding) {
    if (acceptEncoding == null) {
      return false;
    }
    for (String e : acceptEncoding.toString().split(",")) {
      if (e.trim().equals(NAME)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The message {@code compressed} holds, at most {@code maxSize} bytes of it.
   *
   * @throws io.grpc.StatusRuntimeException RESOURCE_EXHAUSTED when it inflates beyond {@code
   *     maxSize}, INTERNAL when it is not gzip
   */
  public static byte[] decompress(byte[] compressed, int maxSize) {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
      byte[] message = in.readNBytes(maxSize);
      if (in.read() >= 0) {
        throw Status.RESOURCE_EXHAUSTED
            .withDescription("decompressed gRPC message exceeds maximum size " + maxSize)
            .asRuntimeException();
      }
      return message;
    } catch (IOException e) {
      throw Status.INTERNAL
          .withDescription("cannot decompress a gzip message: " + e.getMessage())
          .asRuntimeException();
    }
  }

  public static byte[] compress(byte[] message) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(message.length / 2 + 32);
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(message);
    } catch (IOException impossible) {
      throw new IllegalStateException(impossible);
    }
    return out.toByteArray();
  }
}
