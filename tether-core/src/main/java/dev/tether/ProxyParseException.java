package dev.tether;

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
}
