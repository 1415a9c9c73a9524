package dev.tether;

/** The order in which a proxy tries its endpoints (the fourth step of endpoint selection). */
public enum EndpointSelection {
  /** Shuffle the endpoints before each selection (the default). */
  RANDOM,
  /** Keep the order the proxy lists them in. */
  ORDERED
}
