package dev.tether.client;

/**
 * A named session: the server keeps state for it on one connection, so its calls stay there.
 * When that connection is lost and replaced, the session's next call fails with
 * SessionLostException (IBM's -4498) rather than silently continuing on the new server.
 */
final class Session {
  /** The connection the session's work lives on; null before its first call. */
  volatile RequestChannel connection;
}
