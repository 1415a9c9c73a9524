package dev.tether.client;

import dev.tether.RemoteException;
import dev.tether.StreamLostException;
import dev.tether.TetherException;
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
import dev.tether.stream.ChannelLink;
import dev.tether.stream.StreamContext;
import dev.tether.stream.StreamItemCounts;
import dev.tether.stream.StreamLink;
import dev.tether.stream.StreamReceiver;
import dev.tether.stream.StreamSender;
import dev.tether.stream.StreamSettings;
import dev.tether.stream.StreamThreads;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;

/**
 * The client end of one stream, for one subscriber: its state machine (OPENING until the server
 * accepts, OPEN on a connection, RESUMING after that connection broke, CLOSED), the replies it
 * hands to the subscriber and, on a bidirectional stream, the outbound publisher it sends. The
 * opening is a call (same selection, retries under the at-most-once rule, deadline); a RESUME goes
 * to the same server through its key's supervisor. Everything happens in its {@link StreamContext}.
 */
final class ClientStream implements CarriedStream, StreamReceiver.Owner, StreamSender.Owner {
  enum State {
    OPENING,
    OPEN,
    RESUMING,
    CLOSED
  }

  /** How long a failed resume attempt waits before asking its key's supervisor again. */
  private static final long RESUME_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final StreamHost host;
  private final ProxyBinding binding;
  private final String operation;
  private final byte[] request;
  private final Flow.Publisher<byte[]> outbound;
  private final int flags;
  private final StreamSettings settings;
  private final StreamContext context = new StreamContext(StreamThreads.shared());
  private final StreamReceiver replies;

  /** Null on a server stream. */
  private final StreamSender sender;

  /** This stream's part of the runtime's item counts, brought up to date after each run. */
  private final StreamItemCounts.Share counted;

  private State state = State.OPENING;
  private byte[] token;
  private StreamLink link;

  /** The stream table of the connection that carries the stream now; null before the first. */
  private ClientStreams table;

  private ClientConnection connection;
  private Invocation inFlight;
  private long resumeDeadlineNanos;
  private int resumes;

  /** How the stream ended; set as it closes, for its event. */
  private StreamEnding ending;

  ClientStream(
      StreamHost host,
      ProxyBinding binding,
      String operation,
      byte[] request,
      Flow.Publisher<byte[]> outbound,
      int flags) {
    this.host = host;
    this.binding = binding;
    this.operation = operation;
    this.request = request;
    this.outbound = outbound;
    this.flags = flags | Request.STREAM | (outbound != null ? Request.BIDI : 0);
    this.settings = host.config().streams();
    this.replies = new StreamReceiver(context, settings, this);
    this.sender =
        outbound == null ? null : new StreamSender(context, settings.resumeBufferBytes(), this);
    this.counted = host.streamItems().share();
    context.afterEachRun(this::flush);
  }

  /**
   * Gives {@code subscriber} its subscription and starts the opening (a cold publisher's
   * subscribe).
   */
  void start(Flow.Subscriber<? super byte[]> subscriber) {
    context.execute(
        () -> {
          replies.start(subscriber);
          if (state == State.OPENING) {
            host.establish(binding.settings, binding)
                .thenCompose(RequestChannel::ready)
                .whenComplete((c, failure) -> context.execute(() -> connected(c, failure)));
          }
        });
  }

  private void connected(RequestChannel c, Throwable failure) {
    if (state != State.OPENING) {
      return;
    }
    TetherException refusal =
        failure != null ? CallFailures.unwrap(failure) : StreamCapability.refusalOf(c);
    if (refusal != null) {
      end(StreamEnding.ENDED, refusal);
      return;
    }
    Invocation opening = new Invocation(binding, operation, request, flags);
    host.watch(
        opening); // the client interceptor sees the opening as a call: its metadata travels with it
    send(opening, c);
  }

  /**
   * Sends the opening or RESUME; its answer comes back through {@link #accepted}, its failure here.
   */
  private void send(Invocation carrier, RequestChannel c) {
    inFlight = carrier;
    ClientStreams.awaitAnswer(carrier, this);
    carrier.whenComplete(
        (ok, failure) -> {
          if (failure != null) {
            ClientStreams.forgetOpening(carrier);
            context.execute(() -> carrierFailed(carrier, CallFailures.unwrap(failure)));
          }
        });
    carrier.armDeadline();
    host.hand(carrier, c);
  }

  private void carrierFailed(Invocation carrier, TetherException failure) {
    if (carrier != inFlight) {
      return;
    }
    inFlight = null;
    if (state == State.OPENING) {
      end(StreamEnding.ENDED, failure);
    } else if (state == State.RESUMING) {
      if (failure instanceof StreamLostException) {
        lose(failure.getMessage());
      } else {
        resumeLater();
      }
    }
  }

  /** The server accepted the opening or the RESUME on {@code on} (called on its loop). */
  @Override
  public void accepted(ClientConnection on, ClientStreams table, int streamId, byte[] body) {
    context.execute(
        () -> {
          inFlight = null;
          StreamLink next = new ChannelLink(on.channel, streamId);
          if (state == State.OPENING) {
            token = body;
            attach(on, table, next);
            transitionTo(State.OPEN, "opened on " + on.remoteAddress());
            replies.attach(next);
            if (sender != null) {
              outbound.subscribe(sender);
              sender.attach(next, 0, 0);
            }
          } else if (state == State.RESUMING) {
            StreamResume answer = StreamResume.decodeAnswer(body);
            String refusal =
                sender == null
                    ? null
                    : sender.resumeRefusal(answer.received(), next.peerMaxFrameSize());
            if (refusal != null) {
              next.write(new Cancel(streamId));
              next.flush();
              table.forget(streamId);
              lose(refusal);
              return;
            }
            attach(on, table, next);
            resumes++;
            transitionTo(
                State.OPEN, "resumed on " + on.remoteAddress() + " (resume " + resumes + ")");
            replies.attach(next);
            if (sender != null) {
              sender.attach(next, answer.received(), answer.limit());
            }
          } else { // cancelled while the answer was on its way: the server stream is let go
            next.write(new Cancel(streamId));
            next.flush();
            table.forget(streamId);
          }
        });
  }

  private void attach(ClientConnection on, ClientStreams table, StreamLink next) {
    connection = on;
    this.table = table;
    link = next;
  }

  /** What receives the server's items; the loop asks it whether an item may be kept. */
  @Override
  public StreamReceiver replies() {
    return replies;
  }

  /** A frame for this stream from the connection that carries it (from its loop). */
  @Override
  public void onFrame(Frame frame, ClientStreams from) {
    context.execute(
        () -> {
          if (from != table || state != State.OPEN) {
            return;
          }
          if (frame instanceof StreamItem item) {
            replies.onItem(item.position(), item.body());
          } else if (frame instanceof StreamCredit credit) {
            if (sender != null) {
              sender.onCredit(credit.received(), credit.limit());
            }
          } else if (frame instanceof StreamEnd end) {
            replies.onEnd(end);
          } else if (frame instanceof Cancel && sender != null) {
            sender.cancel(); // the service wants no more of what this side sends
          }
        });
  }

  /** The connection that carried the stream closed (called on its loop): resume, or lose it. */
  @Override
  public void linkLost(ClientStreams from, Throwable why) {
    context.execute(
        () -> {
          if (from != table || state != State.OPEN) {
            return;
          }
          link = null;
          replies.detach();
          if (sender != null) {
            sender.detach();
          }
          if (replies.hasEnded() && (sender == null || sender.isFinished())) {
            return; // the server ended the stream before the connection went: its last items wait
            // for demand
          }
          if (settings.resumeWindow().isZero()) {
            lose("its connection closed (" + CloseCause.describe(why) + ") and resuming is off");
            return;
          }
          resumeDeadlineNanos = host.ticker().nanoTime() + settings.resumeWindow().toNanos();
          transitionTo(State.RESUMING, "connection lost: " + CloseCause.describe(why));
          resume();
        });
  }

  /**
   * This side is closing the connection under the stream: the server is told, the subscriber too.
   */
  @Override
  public void closeBySelf(String why) {
    context.execute(
        () -> {
          if (state != State.OPEN) {
            return;
          }
          link.write(new Cancel(link.streamId()));
          link.flush(); // before the connection closes, which it does once the stream has left it
          lose(why);
        });
  }

  /**
   * One resume attempt: the key's supervisor's connection (after its backoff), then RESUME on it.
   */
  private void resume() {
    if (state != State.RESUMING) {
      return;
    }
    long left = resumeDeadlineNanos - host.ticker().nanoTime();
    if (left <= 0) {
      lose("not resumed within " + settings.resumeWindow().toMillis() + " ms");
      return;
    }
    Candidate candidate = connection.candidate;
    host.awaitReady(candidate, connection.key().connectionId(), resumeDeadlineNanos)
        .whenComplete(
            (c, failure) ->
                context.execute(
                    () -> {
                      if (state != State.RESUMING) {
                        return;
                      }
                      if (failure != null || StreamCapability.refusalOf(c) != null) {
                        resumeLater();
                        return;
                      }
                      byte[] body =
                          new StreamResume(token, replies.received(), replies.sentLimit())
                              .encodeRequest();
                      // The RESUME lives no longer than the window: a retry of it must not outlast
                      // the stream's patience.
                      int resumeFlags = flags | Request.RESUME | Request.IDEMPOTENT;
                      send(
                          new Invocation(
                              binding, operation, body, resumeFlags, resumeDeadlineNanos),
                          c);
                    }));
  }

  private void resumeLater() {
    host.scheduleOnControl(() -> context.execute(this::resume), RESUME_PAUSE_NANOS);
  }

  private void lose(String why) {
    end(
        StreamEnding.LOST,
        new StreamLostException(
            "stream " + binding.settings.identity() + "." + operation + " lost: " + why,
            replies.delivered()));
  }

  /**
   * The stream is over on this side, {@code how} says why: the subscriber hears {@code failure}
   * (null: it heard its end).
   */
  private void end(StreamEnding how, Throwable failure) {
    if (state == State.CLOSED) {
      return;
    }
    ending = how;
    transitionTo(State.CLOSED, failure == null ? "ended" : failure.getMessage());
    if (failure != null) {
      replies.fail(failure);
    }
    if (sender != null) {
      sender.cancel();
    }
    if (table != null && link != null) {
      link.flush(); // what this stream wrote leaves before a draining connection can close behind
      // it
      table.forget(link.streamId());
    }
  }

  @Override
  public void receiverCancelled() {
    Invocation opening = inFlight;
    if (opening != null && state == State.OPENING) {
      opening.cancel(true); // the CANCEL reaches the server's stream if it was opened
    }
    if (link != null) {
      link.write(new Cancel(link.streamId()));
    }
    end(StreamEnding.ENDED, null);
  }

  @Override
  public void receiverDone() {
    // The server's own STREAM_LOST (it shut down, or lost the stream) reached the subscriber.
    end(replies.endStatus() == Status.STREAM_LOST ? StreamEnding.LOST : StreamEnding.ENDED, null);
  }

  @Override
  public Throwable failureOf(StreamEnd end, long delivered) {
    String message = end.metadata().getOrDefault(Response.ERROR_MESSAGE, "");
    return switch (end.status()) {
      case REMOTE_ERROR ->
          new RemoteException(end.metadata().getOrDefault(Response.ERROR_TYPE, "unknown"), message);
      case STREAM_LOST ->
          new StreamLostException(
              "stream " + binding.settings.identity() + "." + operation + " lost: " + message,
              delivered);
      default ->
          new TetherException(
              "stream " + operation + " ended with " + end.status() + ": " + message);
    };
  }

  @Override
  public void senderEnded() {}

  /**
   * What this side sends failed before the server could have it (an item over the server's frame
   * size, a publisher past its demand): the subscriber hears why and the server stream is cancelled
   * after the end it was sent, so both sides stop; the connection goes on.
   */
  @Override
  public void senderRefused(Throwable why) {
    if (link != null) {
      link.write(new Cancel(link.streamId()));
    }
    end(StreamEnding.ENDED, why);
  }

  /** Every state change, in the context; emits its event. */
  private void transitionTo(State next, String why) {
    State previous = state;
    if (previous == State.CLOSED || previous == next) {
      return;
    }
    state = next;
    TetherEvent.Kind kind =
        switch (next) {
          case OPEN ->
              previous == State.OPENING
                  ? TetherEvent.Kind.STREAM_OPENED
                  : TetherEvent.Kind.STREAM_RESUMED;
          case RESUMING -> null;
          case CLOSED -> previous == State.OPENING ? null : ending.event;
          case OPENING -> null;
        };
    if (kind != null) {
      TetherEvent.StreamItems items =
          next != State.CLOSED
              ? null
              : new TetherEvent.StreamItems(
                  sender == null ? 0 : sender.produced(), replies.delivered());
      host.events()
          .emit(
              kind,
              connection == null ? null : connection.endpointText(),
              binding.settings.identity() + "." + operation + ": " + why,
              null,
              items);
    }
  }

  private void flush() {
    counted.update(sender == null ? 0 : sender.produced(), replies.delivered());
    StreamLink l = link;
    if (l != null) {
      l.flush();
    }
  }
}
