package dev.tether.grpc;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The marshaller {@link TetherGrpc#rawBytes()} hands out: a message's bytes as they are, with the
 * courtesies gRPC's protobuf marshaller extends to the transport (the outgoing stream tells its
 * length and drains straight into the frame; parsing sizes the array from a known length).
 */
enum RawBytes implements MethodDescriptor.Marshaller<byte[]> {
  INSTANCE;

  @Override
  public InputStream stream(byte[] value) {
    return new KnownLengthStream(value);
  }

  @Override
  public byte[] parse(InputStream stream) {
    try {
      return stream instanceof KnownLength ? readKnownLength(stream) : stream.readAllBytes();
    } catch (IOException e) {
      throw Status.INTERNAL
          .withDescription("cannot read message")
          .withCause(e)
          .asRuntimeException();
    }
  }

  private static byte[] readKnownLength(InputStream stream) throws IOException {
    byte[] message = new byte[stream.available()];
    int read = stream.readNBytes(message, 0, message.length);
    if (read != message.length || stream.read() != -1) {
      throw new IOException(
          "message length differs from the " + message.length + " bytes announced");
    }
    return message;
  }

  /** A byte array stream whose {@code available()} is exact, as {@link KnownLength} promises. */
  private static final class KnownLengthStream extends ByteArrayInputStream
      implements KnownLength, Drainable {

    KnownLengthStream(byte[] value) {
      super(value);
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      int length = count - pos;
      target.write(buf, pos, length);
      pos = count;
      return length;
    }
  }
}
