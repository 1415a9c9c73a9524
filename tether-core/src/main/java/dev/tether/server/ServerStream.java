package dev.tether.server;

import dev.tether.RawStreamService;
import dev.tether.RemoteException;
import dev.tether.ServerCallObserver;
import dev.tether.StreamLostException;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Frame;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import dev.tether.protocol.StreamResume;
import dev.tether.spi.Scheduler;
import dev.tether.stream.ChannelLink;
import dev.tether.stream.StreamContext;
import dev.tether.stream.StreamItemCounts;
import dev.tether.stream.StreamLink;
import dev.tether.stream.StreamReceiver;
import dev.tether.stream.StreamSender;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * The server end of one stream: its state machine (OPEN on a connection, DETACHED while its
 * connection is gone and the client may resume it, CLOSED), the service's publisher it sends and,
 * for a bidirectional stream, the client's items it receives. It outlives its connection for the
 * resume window without cancelling the service. Everything happens in its {@link StreamContext}.
 */
final class ServerStream implements StreamSender.Owner, StreamReceiver.Owner {
  enum State {
    OPEN,
    DETACHED,
    CLOSED
  }

  private final StreamRegistry registry;
  private final String service;
  private final String operation;
  private final String identity;
  private final boolean bidirectional;
  private final StreamContext context;
  private final StreamSender replies;

  /** What the client sends; on a server stream it never gets an item. */
  private final StreamReceiver inbound;

  /** This stream's part of the server's item counts, brought up to date after each run. */
  private final StreamItemCounts.Share counted;

  private final byte[] token;
  private State state = State.OPEN;
  private StreamLink link;

  /** The stream table of the connection that carries the stream now. */
  private ServerStreams table;

  private Scheduler.Cancellable expiry;

  /** How many times the stream lost its connection: an expiry is for one of them. */
  private int detachments;

  private boolean inboundTaken;

  /** Set as the stream closes when it could not go on, for its event. */
  private boolean lost;

  /**
   * The position of the service's last item once its direction ended, else -1; read on the loop,
   * which frees the stream's id when the client acknowledges it.
   */
  private volatile long endedAt = -1;

  ServerStream(StreamRegistry registry, Request opening, Peer peer) {
    this.registry = registry;
    this.service = opening.service();
    this.operation = opening.operation();
    this.identity = peer.streamIdentity();
    this.bidirectional = (opening.flags() & Request.BIDI) != 0;
    this.context = new StreamContext(registry.executor());
    this.replies = new StreamSender(context, registry.settings().resumeBufferBytes(), this);
    this.inbound = new StreamReceiver(context, registry.settings(), this);
    this.token = registry.register(this);
    this.counted = registry.items().share();
    context.afterEachRun(this::flush);
  }

  /**
   * Answers the opening with the token and starts the service (from the connection's loop); {@code
   * watched} (null for none) hears the opening's outcome once the service returned.
   */
  void open(
      RawStreamService handler,
      Request opening,
      Peer peer,
      Channel channel,
      ServerStreams on,
      ServerCallObserver.Execution watched) {
    context.execute(
        () -> {
          attachTo(new ChannelLink(channel, opening.requestId()), on);
          link.write(new Response(opening.requestId(), Status.OK, Map.of(), token));
          replies.attach(link, 0, 0);
          registry.emit(TetherEvent.Kind.STREAM_OPENED, describe(), null);
          Flow.Publisher<byte[]> items;
          try (ServerCallObserver.Scope entered = ObservedExecution.enter(watched)) {
            RequestContext ctx = new RequestContext(opening, peer, 0, registry.ticker());
            items = handler.open(operation, opening.body(), this::subscribeInbound, ctx);
            if (items == null) {
              throw new NullPointerException("the stream service returned no publisher");
            }
          } catch (Throwable t) {
            ObservedExecution.end(watched, Status.REMOTE_ERROR.name(), t);
            replies.onError(t);
            return;
          }
          ObservedExecution.end(watched, Status.OK.name(), null);
          items.subscribe(replies);
        });
  }

  private void subscribeInbound(Flow.Subscriber<? super byte[]> subscriber) {
    context.execute(
        () -> {
          if (inboundTaken) { // rule 1.9 holds: onSubscribe first, then the refusal
            subscriber.onSubscribe(new NoSubscription());
            subscriber.onError(
                new IllegalStateException("a stream's inbound items have one subscriber"));
            return;
          }
          inboundTaken = true;
          inbound.start(subscriber);
          if (!bidirectional) {
            inbound.onEnd(new StreamEnd(0, Status.OK, 0, Map.of()));
          }
        });
  }

  /** A frame for this stream from the connection that carries it (from the loop). */
  void onFrame(Frame frame, ServerStreams from) {
    context.execute(
        () -> {
          if (from != table || state != State.OPEN) {
            return; // a frame the old connection still had in flight
          }
          if (frame instanceof StreamItem item) {
            inbound.onItem(item.position(), item.body());
          } else if (frame instanceof StreamCredit credit) {
            replies.onCredit(credit.received(), credit.limit());
            closeIfFinished();
          } else if (frame instanceof StreamEnd end && bidirectional) {
            // A server stream's inbound direction ended when it opened: an END for it is moot.
            inbound.onEnd(end);
          } else if (frame instanceof Cancel) {
            replies.cancel();
            inbound.fail(new CancellationException("the client cancelled the stream"));
            transitionTo(State.CLOSED, "cancelled by the client");
          }
        });
  }

  /**
   * Why {@code item} breaks the protocol, or null when it does not; on the loop, before the item is
   * kept anywhere. An item of a server stream, or one past the credit this side gave, is refused.
   */
  String refusal(StreamItem item) {
    if (!bidirectional) {
      return "stream " + Integer.toUnsignedString(item.requestId()) + " has no client items";
    }
    return inbound.refusal(item);
  }

  /** True when {@code credit} acknowledges the service's last item: the client is done with it. */
  boolean acknowledgesEnd(StreamCredit credit) {
    long at = endedAt;
    return at >= 0 && credit.received() >= at;
  }

  /**
   * The connection that carried the stream closed: it waits for a resume, the service running on.
   */
  void connectionLost(ServerStreams from) {
    context.execute(
        () -> {
          if (from != table || state != State.OPEN) {
            return;
          }
          replies.detach();
          inbound.detach();
          link = null;
          if (registry.tryDetach()) {
            transitionTo(State.DETACHED, "connection lost");
          } else {
            loseNow(
                "its connection closed while the server kept its "
                    + registry.maxDetachedStreams()
                    + " detached streams already (tether.server.maxDetachedStreams)",
                new CompletableFuture<>());
          }
        });
  }

  /** A RESUME for this stream's token arrived on {@code channel}; answered here, in the context. */
  void resume(Request request, StreamResume asked, Peer peer, Channel channel, ServerStreams on) {
    context.execute(
        () -> {
          StreamLink next = new ChannelLink(channel, request.requestId());
          String refusal =
              state == State.CLOSED
                  ? "the stream is over"
                  : !identity.equals(peer.streamIdentity())
                      ? "the stream belongs to another client"
                      : replies.resumeRefusal(asked.received(), next.peerMaxFrameSize());
          if (refusal != null) {
            // The id is free before the refusal leaves: a client may open a stream on it as soon
            // as it reads the refusal, and an id still held would be a reuse (a protocol error).
            on.forget(request.requestId(), this);
            next.write(
                new Response(
                    request.requestId(),
                    Status.STREAM_LOST,
                    Map.of(Response.ERROR_MESSAGE, refusal),
                    new byte[0]));
            next.flush();
            if (state != State.CLOSED && identity.equals(peer.streamIdentity())) {
              lose(refusal);
            }
            return;
          }
          if (table != null && link != null) {
            // Off the id it had, even on this connection (a second RESUME of it): a stale id
            // would stay "in use" after the stream ends, and count against the connection's cap.
            table.forget(link.streamId(), this);
          }
          attachTo(next, on);
          next.write(
              new Response(
                  request.requestId(),
                  Status.OK,
                  Map.of(),
                  new StreamResume(new byte[0], inbound.received(), inbound.sentLimit())
                      .encodeAnswer()));
          replies.attach(next, asked.received(), asked.limit());
          transitionTo(State.OPEN, "resumed on " + channel.remoteAddress());
        });
  }

  private void attachTo(StreamLink next, ServerStreams on) {
    cancelExpiry();
    if (link != null) {
      // The run's end flushes only the new link: what the old one holds (the answer to a RESUME
      // that came just before this one) must leave now.
      link.flush();
    }
    link = next;
    table = on;
    inbound.attach(next);
  }

  /**
   * The stream cannot go on (server shutdown, expired, unresumable): the client is told if it can
   * be.
   */
  CompletableFuture<Void> lose(String why) {
    CompletableFuture<Void> told = new CompletableFuture<>();
    context.execute(() -> loseNow(why, told));
    return told;
  }

  /** {@link #lose}, in the context; completes {@code told} once the client was told. */
  private void loseNow(String why, CompletableFuture<Void> told) {
    if (state == State.CLOSED) {
      told.complete(null);
      return;
    }
    if (link != null) {
      link.write(
          new StreamEnd(
              link.streamId(),
              Status.STREAM_LOST,
              replies.produced(),
              Map.of(Response.ERROR_MESSAGE, why)));
      // A closing server closes the connection next: the end must have left before that.
      link.flushAndWait().whenComplete((ok, failure) -> told.complete(null));
    } else {
      told.complete(null);
    }
    replies.cancel();
    inbound.fail(
        new StreamLostException("stream " + describe() + " lost: " + why, inbound.delivered()));
    lost = true;
    transitionTo(State.CLOSED, "lost: " + why);
  }

  @Override
  public void senderEnded() {
    endedAt = replies.produced();
    closeIfFinished();
  }

  /**
   * Closes the stream once the client holds the service's last item. The client then stops sending
   * (its stream is over), so a service still reading its items hears that they end here.
   */
  private void closeIfFinished() {
    if (replies.isFinished() && state == State.OPEN) {
      if (!inbound.hasEnded()) {
        inbound.fail(new CancellationException("the stream ended before the client's items did"));
      }
      transitionTo(State.CLOSED, "ended");
    }
  }

  @Override
  public void receiverCancelled() {
    if (link != null) { // the service wants no more of the client's items
      link.write(new Cancel(link.streamId()));
    }
  }

  @Override
  public void receiverDone() {}

  @Override
  public Throwable failureOf(StreamEnd end, long delivered) {
    if (end.status() == Status.REMOTE_ERROR) {
      return new RemoteException(
          end.metadata().getOrDefault(Response.ERROR_TYPE, "unknown"),
          end.metadata().getOrDefault(Response.ERROR_MESSAGE, ""));
    }
    return new StreamLostException(
        "the client's items were lost: "
            + end.metadata().getOrDefault(Response.ERROR_MESSAGE, end.status().toString()),
        delivered);
  }

  /** Every state change, in the context; emits its event. */
  private void transitionTo(State next, String why) {
    State previous = state;
    if (previous == State.CLOSED || previous == next) {
      return;
    }
    state = next;
    if (previous == State.DETACHED) {
      registry.reattached(); // entering DETACHED was counted by tryDetach
    }
    switch (next) {
      case DETACHED -> {
        int detachment = ++detachments;
        expiry =
            registry
                .scheduler()
                .schedule(
                    () -> context.execute(() -> expire(detachment)),
                    registry.settings().resumeWindow().toNanos());
      }
      case OPEN -> registry.emit(TetherEvent.Kind.STREAM_RESUMED, describe() + " " + why, null);
      case CLOSED -> {
        cancelExpiry();
        registry.remove(token);
        if (table != null && link != null) {
          table.forget(link.streamId(), this);
        }
        registry.emit(
            lost ? TetherEvent.Kind.STREAM_LOST : TetherEvent.Kind.STREAM_CLOSED,
            describe() + " " + why,
            new TetherEvent.StreamItems(replies.produced(), inbound.delivered()));
      }
    }
  }

  /**
   * The resume window of the {@code detachment}th loss of the connection is over. A RESUME taken
   * after the timer fired but before this ran called it off too late: the stream it resumed goes
   * on, also when it has lost its next connection since.
   */
  private void expire(int detachment) {
    if (state == State.DETACHED && detachment == detachments) {
      lose("not resumed within " + registry.settings().resumeWindow().toMillis() + " ms");
    }
  }

  private void cancelExpiry() {
    if (expiry != null) {
      expiry.cancel();
      expiry = null;
    }
  }

  private void flush() {
    counted.update(replies.produced(), inbound.delivered());
    StreamLink l = link;
    if (l != null) {
      l.flush();
    }
  }

  State state() {
    return state;
  }

  private String describe() {
    return service + "." + operation;
  }

  /** What a second subscriber to the inbound items gets before its refusal. */
  private static final class NoSubscription implements Flow.Subscription {
    @Override
    public void request(long n) {}

    @Override
    public void cancel() {}
  }
}
