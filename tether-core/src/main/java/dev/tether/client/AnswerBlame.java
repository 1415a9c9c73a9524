package dev.tether.client;

/**
 * What an attempt's ending says of the node that carried it, as a node group's outlier detection
 * counts it. A failed answer counts against the node only as far as it stands out from its peers'
 * over the same recent calls; a node fault also makes a streak toward ejection on its own.
 */
public enum AnswerBlame {
  /** A good answer, or an ending that is not the node's doing (a lost connection). */
  NONE,
  /**
   * The node answered with a failure of the service or its guard (REMOTE_ERROR, PERMISSION_DENIED).
   * The client cannot tell an exception a typed method declares from one it does not (the answer
   * names only the class), so every such answer counts here, and only in the comparison with the
   * node's peers, where a caller's bad request, failing alike everywhere, ejects none.
   */
  FAILED_ANSWER,
  /**
   * The server failed around the service (INTERNAL, DEADLINE_EXCEEDED) or gave no answer within the
   * attempt timeout.
   */
  NODE_FAULT,
  /**
   * The answer opened a stream of another wire protocol (gRPC), whose end says what it says of the
   * node: nothing counts now, and the end counts when it comes ({@link NodeRouter#onStreamEnded}).
   */
  PENDING;

  /** Whether the node's answer was a failure of either kind. */
  public boolean failed() {
    return this == FAILED_ANSWER || this == NODE_FAULT;
  }
}
