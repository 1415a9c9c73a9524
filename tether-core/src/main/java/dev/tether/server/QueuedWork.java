package dev.tether.server;

/**
 * Work that waits in the {@link RunQueue} for a service thread: a call, or a SERIALIZED
 * connection's lane. It either runs once, or, when the server cannot take it (queue full, no
 * thread, closing), is refused once, which answers REFUSED for every call it holds.
 */
interface QueuedWork extends Runnable {
  /** The server cannot run this work: it never runs, and its callers learn that it did not. */
  void refuse();
}
