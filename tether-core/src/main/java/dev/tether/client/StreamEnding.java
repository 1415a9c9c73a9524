package dev.tether.client;

import dev.tether.observe.TetherEvent;

/**
 * How a client stream came to its end, which names the event its close emits: the cause is kept as
 * a value where the stream ends, never read back out of a message's words.
 */
enum StreamEnding {
  /** Completed, failed by the service, or cancelled by the subscriber. */
  ENDED(TetherEvent.Kind.STREAM_CLOSED),
  /**
   * Could not go on: not resumed within the window, unknown to the server, refused a resume, the
   * server or this client shut down.
   */
  LOST(TetherEvent.Kind.STREAM_LOST);

  /** The event a stream that was opened emits as it ends this way. */
  final TetherEvent.Kind event;

  StreamEnding(TetherEvent.Kind event) {
    this.event = event;
  }
}
