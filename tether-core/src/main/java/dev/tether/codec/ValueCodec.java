package dev.tether.codec;

import java.io.IOException;

/**
 * How values of one declared type become bytes and back: a {@link RecordCodec}, or databind's
 * reader and writer.
 */
interface ValueCodec {
  byte[] encode(Object value) throws IOException;

  Object decode(byte[] bytes) throws IOException;
}
