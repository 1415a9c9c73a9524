package dev.tether.chaos;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.ConnectionLostException;
import dev.tether.InvocationTimeoutException;
import dev.tether.NoAvailableNodeException;
import dev.tether.NoEndpointException;
import dev.tether.OperationNotFoundException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import dev.tether.ServiceNotFoundException;
import dev.tether.SessionLostException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What a caller learned about one call, as the ledger records it. */
public enum Outcome {
  /** Not completed yet; at the end of a run, a call that never completed. */
  PENDING("never completed"),
  /** Answered (twoway), or handed over without error (oneway). */
  OK("ok"),
  /** Failed with an error that says the request did not run (refused, never sent, session lost). */
  NOT_EXECUTED("failed, not executed"),
  /**
   * Failed with an error that says the request may have run (lost after it was sent, timed out).
   */
  MAY_HAVE_EXECUTED("failed, may have executed"),
  /**
   * Answered with a sick node's error ({@link ChaosService.SickNodeException}): an answer, not a
   * loss; the sick node ran nothing.
   */
  SICK_ANSWER("failed, answered by a sick node"),
  /**
   * Failed with SERVICE_NOT_FOUND or OPERATION_NOT_FOUND: every node tried lacked the service, so
   * none of them ran it.
   */
  NOT_FOUND("failed, service not found"),
  /** Failed with any other error: never expected under the chaos load. */
  OTHER_FAILURE("failed otherwise");

  /** As the ledger prints it. */
  public final String label;

  Outcome(String label) {
    this.label = label;
  }

  /**
   * What {@code failure} tells the caller about execution (the at-most-once rule): the exceptions
   * that prove the request did not run, those that leave it in doubt, and everything else.
   */
  public static Outcome of(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof ConnectionLostException lost) {
      return lost.mayHaveExecuted() ? MAY_HAVE_EXECUTED : NOT_EXECUTED;
    }
    if (t instanceof RemoteException remote
        && ChaosService.SickNodeException.class.getName().equals(remote.remoteType())) {
      return SICK_ANSWER;
    }
    if (t instanceof ServiceNotFoundException || t instanceof OperationNotFoundException) {
      return NOT_FOUND;
    }
    if (t instanceof InvocationTimeoutException) {
      // The request may be running, or may still run: the connection stays open.
      return MAY_HAVE_EXECUTED;
    }
    if (t instanceof RequestRefusedException
        || t instanceof ConnectFailedException
        || t instanceof ConnectTimeoutException
        || t instanceof NoAvailableNodeException
        || t instanceof NoEndpointException
        || t instanceof SessionLostException) {
      return NOT_EXECUTED;
    }
    return OTHER_FAILURE;
  }

  /** The failure a future or an executor wrapped. */
  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
