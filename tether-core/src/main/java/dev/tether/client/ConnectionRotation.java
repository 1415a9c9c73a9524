package dev.tether.client;

import dev.tether.internal.EventBus;
import dev.tether.observe.TetherEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The replacement of a key's connection that reached its maximum age (the server's GOAWAY(MAX_AGE)
 * or this side's {@code tether.connection.maxAge}): opened at once beside the aged connection,
 * which keeps taking calls until the replacement is ready. An age is not a failure, so no backoff
 * streak grows. The connections it retires stay known here until they close, so that a closing
 * runtime ends the calls they still carry. Belongs to its supervisor, on the runtime's control
 * executor.
 */
final class ConnectionRotation {
  private final SupervisorHost host;
  private final ConnectionKey key;

  /** Non-null only while a replacement connects: the connection it replaces. */
  private RequestChannel aged;

  /** Non-null only while a replacement connects. */
  private RequestChannel replacement;

  /** The connections retired (draining their calls) that have not closed yet. */
  private final List<RequestChannel> retired = new ArrayList<>();

  /** A copy of {@code retired} for readers on other threads (status, shutdown). */
  private volatile List<RequestChannel> published = List.of();

  ConnectionRotation(SupervisorHost host, ConnectionKey key) {
    this.host = host;
    this.key = key;
  }

  boolean isUnderWay() {
    return replacement != null;
  }

  /** The replacement under way; null when none is. */
  RequestChannel replacement() {
    return replacement;
  }

  /**
   * Opens the replacement of {@code old}; {@code done} runs on the control executor when its
   * attempt ends.
   */
  void start(
      RequestChannel old,
      Candidate candidate,
      String why,
      BiConsumer<RequestChannel, Throwable> done) {
    aged = old;
    RequestChannel next = host.newConnection(candidate, key);
    replacement = next;
    emit(TetherEvent.Kind.CONNECTION_AGED, candidate, why + "; opening its replacement");
    next.connect();
    next.ready()
        .whenComplete((ready, failure) -> host.control().execute(() -> done.accept(next, failure)));
  }

  /**
   * The attempt of {@code next} ended: the connection it replaces, or null when {@code next} is no
   * longer the replacement under way (a stale callback). The rotation is over either way.
   */
  RequestChannel finish(RequestChannel next) {
    if (next != replacement) {
      return null;
    }
    RequestChannel old = aged;
    aged = null;
    replacement = null;
    return old;
  }

  /**
   * The aged connection closed before its replacement was ready: the replacement becomes the
   * attempt.
   */
  RequestChannel promote() {
    RequestChannel next = replacement;
    aged = null;
    replacement = null;
    return next;
  }

  /**
   * New calls go to {@code next} from now on: {@code old} drains, closing once its calls are
   * answered.
   */
  void rotated(Candidate candidate, RequestChannel old, RequestChannel next) {
    emit(
        TetherEvent.Kind.CONNECTION_ROTATED,
        candidate,
        "new calls go to " + next + "; " + old + " drains");
    old.markRotated();
    old.drain();
  }

  /**
   * {@code old} stays among {@link #retired()} until it closes. Called before the key's connection
   * moves on from it, so a reader on another thread that finds the key's new connection finds this
   * one too.
   */
  void retire(RequestChannel old) {
    retired.add(old);
    published = List.copyOf(retired);
  }

  /** A connection of the key closed: true when it was a retired one, which is forgotten now. */
  boolean onClosed(RequestChannel c) {
    if (!retired.remove(c)) {
      return false;
    }
    published = List.copyOf(retired);
    return true;
  }

  /** The retired connections still open (their calls not all answered); any thread. */
  List<RequestChannel> retired() {
    return published;
  }

  /** The runtime closes: the replacement goes with it. */
  void cancel() {
    if (replacement != null) {
      replacement.close();
    }
    promote();
  }

  private void emit(TetherEvent.Kind kind, Candidate candidate, String detail) {
    EventBus events = host.events();
    if (events.isOn()) {
      events.emit(kind, candidate.endpoint().toString(), detail, null);
    }
  }
}
