package dev.tether;

/** How a proxy spreads calls over its nodes. */
public enum LoadBalancing {
  /** One cached connection; fail over to another node only when it breaks (the default). */
  PINNED,
  /** Each call to the next live node in turn. */
  ROUND_ROBIN,
  /** Each call to a live node chosen uniformly at random. */
  RANDOM,
  /**
   * Mostly to the nodes that answered fastest lately, exploring the others now and then
   * (epsilon-greedy, as RethinkDB's driver does).
   */
  EPSILON_GREEDY,
  /** Power of two choices on in-flight calls, ties broken by latency. */
  LEAST_LOADED
}
