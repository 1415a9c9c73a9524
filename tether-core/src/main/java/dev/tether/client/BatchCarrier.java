package dev.tether.client;

/**
 * What a proxy's batch flush ({@link BatchFrames}) asks of the stream connection it goes out on:
 * whether it is ACTIVE, the largest frame its server takes, and a word before the batch is written.
 * {@link ClientConnection} is the one implementation; called on the connection's loop.
 */
interface BatchCarrier extends RequestChannel {
  /** Why a proxy's batch cannot go out now: the close's cause when known; null while ACTIVE. */
  Throwable whyNotActive();

  /** The largest frame the server takes (WELCOME's); before it, the server's decoder decides. */
  int serverMaxFrameSize();

  /** One of the proxy's batches is about to be written: the peer hears from this side now. */
  void onBatchWriting();
}
