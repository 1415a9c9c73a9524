package dev.tether.client;

import dev.tether.CallPhase;
import dev.tether.ConnectFailedException;
import dev.tether.ConnectTimeoutException;
import dev.tether.Endpoint;
import dev.tether.IncompatibleServerException;
import dev.tether.NoEndpointException;
import dev.tether.TetherException;
import dev.tether.transport.PeerNameMismatchException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One call's walk over its proxy's endpoints, for its first connection and for every retry: within
 * a round each endpoint once, in selection order with backing-off keys last; between rounds the
 * wait {@link RetryRounds} gives, on the runtime's scheduler and never past the call's deadline.
 * Each key's supervisor owns its dials: a key that backs off counts as failed, unless this call
 * took part in the dial that made it back off, in an earlier round; then this round dials it again,
 * or joins the attempt another call started meanwhile. A round that met only keys it may not dial
 * is the last. One thread at a time (the call's) moves the walk; what it fails with is its own.
 */
final class EndpointWalk implements AttemptWitness {
  private final RetryRounds rounds;
  private final ConnectionPool pool;
  private final CallHost host;
  private final ProxySettings settings;

  /** The call that walks; null for a connection asked for outside a call (connectAsync). */
  private final Invocation call;

  /** The call's deadline on the ticker (0: none): no round waits past it. */
  private final long deadlineNanos;

  /** False for a single round over the configured servers, ignoring any cluster view. */
  private final boolean throughView;

  private List<Candidate> candidates = List.of();
  private int index;
  private int round;

  /** Keys this round went to, or must not go to (a hedge's siblings'). */
  private final Set<ConnectionKey> tried = new HashSet<>();

  /**
   * Keys whose dial this call took part in and saw fail, with that attempt's number; null until the
   * first. A later round dials these again.
   */
  private Map<ConnectionKey, Long> dialled;

  /** Keys whose server answered that it lacks the call's service or operation; null until one. */
  private Set<ConnectionKey> notFoundOn;

  /** The attempt the supervisor says the pending obtain took part in; -1 for none. */
  private long attemptSeen = -1;

  /** True when this round failed otherwise than on keys it may not dial (a lost connection). */
  private boolean roundFailedOtherwise;

  private boolean configuredWalked;
  private CompletableFuture<RequestChannel> leg;
  private TetherException first;
  private TetherException last;
  private StringBuilder triedNames;

  /** True while every failure so far was a server outside the proxy's version range. */
  private boolean onlyIncompatible = true;

  /** Endpoints whose certificate names another host: a later round would meet the same one. */
  private Set<Endpoint> wrongName;

  EndpointWalk(
      RetryRounds rounds,
      ConnectionPool pool,
      CallHost host,
      ProxySettings settings,
      Invocation call,
      long deadlineNanos,
      boolean throughView) {
    this.rounds = rounds;
    this.pool = pool;
    this.host = host;
    this.settings = settings;
    this.call = call;
    this.deadlineNanos = deadlineNanos;
    this.throughView = throughView;
  }

  /** Walks {@code planned} (this round's endpoints, as selected) first, then the further rounds. */
  CompletableFuture<RequestChannel> start(List<Candidate> planned) {
    leg = new CompletableFuture<>();
    candidates = planned;
    index = 0;
    tryNext();
    return leg;
  }

  /**
   * Goes on after the call's attempt failed: the endpoints this round has not tried yet,
   * re-selected (a cluster view learned meanwhile is in force), then the further rounds.
   */
  CompletableFuture<RequestChannel> resume() {
    leg = new CompletableFuture<>();
    if (select()) {
      tryNext();
    }
    return leg;
  }

  /** The call's attempt on a connection of {@code key} failed: this round is done with the key. */
  void attemptFailedOn(ConnectionKey key) {
    if (key != null) {
      tried.add(key);
    }
    roundFailedOtherwise = true;
  }

  /** The server of {@code key} answered that it has no such service or operation. */
  void notFoundOn(ConnectionKey key) {
    if (notFoundOn == null) {
      notFoundOn = new HashSet<>(4);
    }
    notFoundOn.add(key);
  }

  /**
   * True when every key this round tried answered that it lacks the call's service or operation:
   * another round would hear the same.
   */
  boolean everyTriedLacksIt() {
    return notFoundOn != null && notFoundOn.containsAll(tried);
  }

  /** Keys this round must not try (a hedge's siblings are on them). */
  void exclude(Set<ConnectionKey> keys) {
    tried.addAll(keys);
  }

  /** Keys this round tried or must not try. */
  Set<ConnectionKey> tried() {
    return tried;
  }

  /** True when selection now names an endpoint this round has not tried; throws as selection. */
  boolean hasUntried() {
    for (Candidate c : rounds.candidates(settings)) {
      if (!tried.contains(c.key(settings.connectionId()))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Starts the next round, running {@code round} once its wait is over; false when no round is
   * left. A wait that would pass the deadline is not kept: the deadline ends the call first.
   */
  boolean nextRound(Runnable next) {
    Duration wait = rounds.waitBeforeNext(settings, round);
    if (wait == null) {
      return false;
    }
    round++;
    tried.clear();
    roundFailedOtherwise = false;
    if (wait.isZero()) {
      next.run();
      return true;
    }
    if (call != null) {
      call.waitsIn(CallPhase.Kind.RETRY_DELAY, null);
    }
    long untilDeadline =
        deadlineNanos == 0 ? Long.MAX_VALUE : deadlineNanos - host.ticker().nanoTime();
    if (untilDeadline > wait.toNanos()) {
      rounds.start(wait, next);
    } else {
      rounds.holdForClose(Duration.ofNanos(Math.max(0, untilDeadline)), next);
    }
    return true;
  }

  /** True the first time only: a call goes back to its configured servers at most once. */
  boolean takeConfiguredFallback() {
    if (configuredWalked) {
      return false;
    }
    configuredWalked = true;
    return true;
  }

  @Override
  public void tookPart(long attempt) {
    attemptSeen = attempt;
  }

  private void tryNext() {
    if (call != null && call.isFinished()) {
      leg.completeExceptionally(finalFailure()); // the deadline or a cancel ended the call
      return;
    }
    while (index < candidates.size()) {
      Candidate c = candidates.get(index++);
      ConnectionKey key = c.key(settings.connectionId());
      if (tried.add(key) && (wrongName == null || !wrongName.contains(c.endpoint()))) {
        obtain(c, key);
        return;
      }
    }
    endOfRound();
  }

  private void obtain(Candidate c, ConnectionKey key) {
    Long seen = dialled == null ? null : dialled.remove(key);
    attemptSeen = -1;
    CallExtras.noteAwaited(call, key);
    pool.supervisor(c, settings.connectionId())
        .obtain(c, settings.waitForReady(), deadlineNanos, seen == null ? -1 : seen, this)
        .whenComplete((connection, failure) -> onObtained(c, key, connection, failure));
  }

  private void onObtained(
      Candidate c, ConnectionKey key, RequestChannel connection, Throwable failure) {
    if (failure == null && settings.acceptsServerOf(connection)) {
      leg.complete(connection);
      return;
    }
    CallExtras.noteAwaited(call, null);
    if (failure == null) {
      roundFailedOtherwise = true;
      recordFailure(c, incompatible(c, connection));
    } else {
      if (attemptSeen >= 0) {
        if (dialled == null) {
          dialled = new HashMap<>(4);
        }
        dialled.put(key, attemptSeen);
      }
      recordFailure(c, CallFailures.unwrap(failure));
    }
    tryNext();
  }

  private TetherException incompatible(Candidate c, RequestChannel connection) {
    return new IncompatibleServerException(
        c.endpoint()
            + " runs version "
            + ((ClientConnection) connection).welcome().serverVersion()
            + ", outside "
            + settings.serverVersion());
  }

  private void recordFailure(Candidate c, TetherException failure) {
    onlyIncompatible &= failure instanceof IncompatibleServerException;
    if (PeerNameMismatchException.isCauseOf(failure)) {
      if (wrongName == null) {
        wrongName = new HashSet<>(2);
      }
      wrongName.add(c.endpoint());
    }
    if (triedNames == null) {
      triedNames = new StringBuilder();
    } else {
      triedNames.append(", ");
    }
    triedNames.append(c.endpoint());
    if (first == null) {
      first = failure;
    }
    last = failure;
  }

  /**
   * The round is over: another one when this call has something to dial again; else a call that
   * waits for ready waits for its keys' next attempts, and any other fails.
   */
  private void endOfRound() {
    boolean worthIt = roundFailedOtherwise || (dialled != null && !dialled.isEmpty());
    if (throughView && worthIt && nextRound(this::again)) {
      return;
    }
    if (throughView && call != null && settings.waitForReady() && !host.isClosing()) {
      waitForReady();
      return;
    }
    leg.completeExceptionally(finalFailure());
  }

  /** Follows the keys of the selection now until one is ready (control executor). */
  private void waitForReady() {
    CompletableFuture<RequestChannel> waiting = leg;
    host.control()
        .execute(
            () -> {
              List<Candidate> all;
              try {
                all = rounds.candidates(settings);
              } catch (TetherException e) {
                waiting.completeExceptionally(e);
                return;
              }
              boolean hopeless = all.isEmpty() || (last != null && onlyIncompatible);
              new ReadyWait(
                      pool,
                      host.control(),
                      host::isClosing,
                      call::isFinished,
                      settings,
                      deadlineNanos)
                  .start(all, waiting, hopeless ? this::finalFailure : null);
            });
  }

  /** The next round selects anew: names re-resolved, a newly learned cluster view in force. */
  private void again() {
    if (select()) {
      tryNext();
    }
  }

  private boolean select() {
    try {
      List<Candidate> selected =
          throughView ? rounds.candidates(settings) : rounds.configured(settings);
      candidates = pool.healthyFirst(selected, settings.connectionId());
      index = 0;
      return true;
    } catch (TetherException e) {
      leg.completeExceptionally(e);
      return false;
    }
  }

  /**
   * The walk's own failure, naming every endpoint tried and the last cause; the first cause, when
   * another, is suppressed in it (the causes themselves may be shared with other calls, so they are
   * never changed).
   */
  private TetherException finalFailure() {
    if (last == null) {
      return new NoEndpointException("no endpoint of " + settings.identity() + " to connect to");
    }
    String message =
        "cannot connect "
            + settings.identity()
            + " after "
            + (round + 1)
            + " round(s); tried "
            + triedNames
            + "; last cause: "
            + last.getMessage();
    TetherException ex =
        last instanceof ConnectTimeoutException
            ? new ConnectTimeoutException(message, last)
            : onlyIncompatible
                ? new IncompatibleServerException(message, last)
                : new ConnectFailedException(message, last);
    if (first != last) {
      ex.addSuppressed(first);
    }
    return ex;
  }
}
