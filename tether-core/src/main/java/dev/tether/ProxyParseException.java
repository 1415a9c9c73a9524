package dev.tether;

import java.util.List;

/** A proxy or endpoint string does not follow the grammar; names the offending position. */
public class ProxyParseException extends TetherException {
  private final int position;

  public ProxyParseException(String input, int position, String problem) {
    super(problem + " at position " + position + " in \"" + input + "\"");
    this.position = position;
  }

  /** Zero-based index into the parsed string where the problem starts. */
  public int position() {
    return position;
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected ProxyParseException(ProxyParseException original, List<Attempt> attempts) {
    super(original, attempts);
    this.position = original.position;
  }

  @Override
  public ProxyParseException withAttempts(List<Attempt> attempts) {
    return new ProxyParseException(this, attempts);
  }
}
