package dev.tether;

/** The life of one client connection. */
public enum ConnectionState {
  /** Transport connect and Tether handshake under way. */
  CONNECTING,
  /** Handshake done; carries requests. */
  ACTIVE,
  /** The server sent GOAWAY: no new requests, pending ones may still be answered. */
  DRAINING,
  /** Closed; terminal. */
  CLOSED
}
