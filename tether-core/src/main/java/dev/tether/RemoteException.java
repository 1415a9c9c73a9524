package dev.tether;

import java.util.List;

/** The remote service threw; carries the remote exception's type and message. */
public class RemoteException extends TetherException {
  private final String remoteType;
  private final String remoteMessage;

  public RemoteException(String remoteType, String remoteMessage) {
    super(remoteType + ": " + remoteMessage);
    this.remoteType = remoteType;
    this.remoteMessage = remoteMessage;
  }

  /** The fully qualified class name of the exception thrown on the server. */
  public String remoteType() {
    return remoteType;
  }

  /** The message of the exception thrown on the server, or "" when it had none. */
  public String remoteMessage() {
    return remoteMessage;
  }

  /**
   * A copy of {@code original} that also lists the call's attempts (see {@link
   * TetherException#withAttempts}).
   */
  protected RemoteException(RemoteException original, List<Attempt> attempts) {
    super(original, attempts);
    this.remoteType = original.remoteType;
    this.remoteMessage = original.remoteMessage;
  }

  @Override
  public RemoteException withAttempts(List<Attempt> attempts) {
    return new RemoteException(this, attempts);
  }
}
