package dev.tether.protocol;

/** Why a GOAWAY was sent, with its wire code. */
public enum GoAwayReason {
  /** Graceful shutdown: in-flight requests finish, new ones go elsewhere. */
  SHUTDOWN(0),
  /** The peer sent something that breaks the protocol; the connection closes now. */
  PROTOCOL_ERROR(1),
  /** The connection was silent for too long. */
  IDLE_TIMEOUT(2),
  /** Handshake rejected: unsupported protocol version. */
  UNSUPPORTED_VERSION(3),
  /**
   * Protocol 1.1: the server is at its {@code maxConnections} and turned this connection away
   * before the handshake; nothing ran, the client should try another server.
   */
  TOO_MANY_CONNECTIONS(4),
  /**
   * Protocol 1.2: the connection reached the server's maximum age. With {@code lastAcceptedId}
   * {@link GoAway#UNTIL_FURTHER_NOTICE} the server still serves everything the client sends and the
   * client should move new calls to a new connection and close this one once answered; with any
   * other id it is the end of the grace, read as SHUTDOWN.
   */
  MAX_AGE(5);

  private static final GoAwayReason[] BY_CODE = values();

  private final int code;

  GoAwayReason(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** True for the reasons that end a connection on purpose, not because something was wrong. */
  public boolean isGraceful() {
    return this == SHUTDOWN || this == IDLE_TIMEOUT || this == MAX_AGE;
  }

  /**
   * The reason for a wire code; a code this side does not know (a later version's) is read as
   * SHUTDOWN, the reason every receiver can act on: drain, and retry what was not accepted.
   */
  public static GoAwayReason fromCode(int code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : SHUTDOWN;
  }
}
