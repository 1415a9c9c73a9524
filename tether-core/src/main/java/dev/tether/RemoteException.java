package dev.tether;

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
}
