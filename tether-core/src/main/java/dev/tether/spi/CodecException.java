package dev.tether.spi;

import dev.tether.Attempt;
import dev.tether.TetherException;
import java.util.List;

/** A payload could not be encoded or decoded with the codec in use. */
public class CodecException extends TetherException {
  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected CodecException(CodecException original, List<Attempt> attempts) {
    super(original, attempts);
  }

  @Override
  public CodecException withAttempts(List<Attempt> attempts) {
    return new CodecException(this, attempts);
  }
}
