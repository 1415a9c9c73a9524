package dev.tether;

import java.util.List;

/**
 * The call's invocation timeout passed without an answer; the connection stays open. Its {@link
 * #timeline()} says where the time went, phase by phase, and the message lists the same.
 */
public class InvocationTimeoutException extends TetherException {
  private final List<CallPhase> timeline;

  public InvocationTimeoutException(String message) {
    this(message, List.of());
  }

  public InvocationTimeoutException(String message, Throwable cause) {
    super(message, cause);
    this.timeline = List.of();
  }

  /**
   * @param timeline the phases the call went through, oldest first
   */
  public InvocationTimeoutException(String message, List<CallPhase> timeline) {
    super(message);
    this.timeline = List.copyOf(timeline);
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected InvocationTimeoutException(
      InvocationTimeoutException original, List<Attempt> attempts) {
    super(original, attempts);
    this.timeline = original.timeline;
  }

  /**
   * The phases the call went through until its deadline, oldest first (connecting, backing off,
   * waiting for a slot, awaiting the reply, waiting between retry rounds); empty when the exception
   * did not come from a call's deadline.
   */
  public List<CallPhase> timeline() {
    return timeline;
  }

  @Override
  public InvocationTimeoutException withAttempts(List<Attempt> attempts) {
    return new InvocationTimeoutException(this, attempts);
  }
}
