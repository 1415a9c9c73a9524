package dev.tether;

/** The order in which a proxy tries its endpoints (seed 000, step 4). */
public enum EndpointSelection {
  /** Shuffle the endpoints before each selection (the default). */
  RANDOM,
  /** Keep the order the proxy lists them in. */
  ORDERED
}
