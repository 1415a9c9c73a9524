package dev.tether.spi;

import dev.tether.TetherException;

/** A payload could not be encoded or decoded with the codec in use. */
public class CodecException extends TetherException {
  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }
}
