package dev.tether.testkit;

/** Which way bytes travel through a {@link FaultProxy}. */
public enum Direction {
  /** From the client that connected to the proxy towards the proxy's target server. */
  CLIENT_TO_SERVER,
  /** From the target server back to the client. */
  SERVER_TO_CLIENT
}
