package dev.tether;

/**
 * Whether a TLS server asks its clients for a certificate ({@link TlsConfig#withClientAuth}).
 * Clients ignore it.
 */
public enum ClientAuth {
  /** Do not ask for a client certificate; any client that trusts the server may connect. */
  NONE,
  /**
   * Ask for a certificate from a trusted CA, but let a client without one connect anonymously. The
   * server names the CAs it trusts, and JDK clients offer no certificate outside them.
   */
  OPTIONAL,
  /** Demand a trusted certificate; the handshake fails without one. */
  REQUIRE
}
