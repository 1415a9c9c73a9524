package dev.tether.protocol;

/** The outcome carried by a RESPONSE, with its wire code. */
public enum Status {
  /** The service returned normally; the body is its result. */
  OK(0),
  /** The service threw; metadata names the remote type and message. */
  REMOTE_ERROR(1),
  /** No service of that name is registered. */
  SERVICE_NOT_FOUND(2),
  /** The service has no such operation. */
  OPERATION_NOT_FOUND(3),
  /** The server did not execute the request (draining or overloaded); safe to retry. */
  REFUSED(4),
  /** The deadline passed before the service ran. */
  DEADLINE_EXCEEDED(5),
  /** The server failed outside service code. */
  INTERNAL(6),
  /** The server's interceptor refused the caller before the service ran; never retried. */
  PERMISSION_DENIED(7),
  /**
   * Protocol 1.3: the stream cannot go on (unknown or expired resume token, another client's token,
   * the server shutting down); what was delivered stays delivered.
   */
  STREAM_LOST(8);

  private static final Status[] BY_CODE = values();

  private final int code;

  Status(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The status for a wire code, or null when the code is unknown. */
  public static Status fromCode(int code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
