package dev.tether.client;

import dev.tether.Attempt;
import dev.tether.CallPhase;
import dev.tether.TetherException;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.EncodedNames;
import dev.tether.protocol.Request;
import dev.tether.protocol.Status;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;

/**
 * Where one call's current attempt is: its {@link State} as the runtime sees it (kept apart from
 * the future, which the caller may complete for itself), the connection it is on, its request id
 * and whether its whole frame reached the kernel, which decides under the at-most-once rule whether
 * a failed attempt may run again. Part of the {@link Invocation} itself rather than an object
 * beside it, so a call costs one allocation.
 *
 * <p>Ownership: while the attempt is on a connection (WRITTEN) the connection's event loop drives
 * it; between attempts the runtime's control executor does. The deadline and a caller's cancel may
 * strike from any thread, so every change of state is one compare-and-set in {@link #transition}:
 * exactly one thread makes each.
 *
 * <p>It is also all that a connection knows of a call: connections, their pending table, backlog
 * and batch writer name this type, never {@link Invocation}, and tell the call through the abstract
 * methods below what became of its attempt. Invocation, the one final subclass, answers them, so
 * the calls stay monomorphic. As the write listener of a batch holding only this call, it hears
 * whether its frame left whole.
 */
abstract class CallAttempt extends ReplyFuture implements ChannelFutureListener {
  /** Where the call is, as the runtime sees it. */
  enum State {
    /**
     * On no connection: before the first attempt or between attempts; the server cannot have it.
     */
    UNSENT,
    /**
     * Encoded into a connection's write batch; whether the whole frame reached the kernel (and so
     * the server may run it) is {@link #wasSent()}, which the connection's loop keeps.
     */
    WRITTEN,
    /** Answered, failed, timed out or cancelled; terminal. */
    DONE
  }

  private static final VarHandle STATE;
  private static final AnswerBlame[] BLAMES = AnswerBlame.values();
  private static final State[] STATES = State.values();

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(CallAttempt.class, "state", byte.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Changed only through {@link #transition}, by compare-and-set on {@code STATE} (hence volatile,
   * not owned by one thread): the connection's loop, the deadline timer and a caller's cancel may
   * each end the call, and exactly one wins. The {@link State}'s ordinal, so that it shares a word
   * with the booleans instead of taking a reference of its own (the call is 56 bytes, not 64); 0 is
   * UNSENT, so the constructor writes nothing.
   */
  @SuppressWarnings("unused")
  private volatile byte state;

  /** Set on the connection's loop when the attempt is encoded. */
  int requestId;

  /**
   * True once the whole frame of the current attempt reached the kernel. Written and read on the
   * connection's loop only (a plain field: the hot path pays no atomic for it).
   */
  private boolean sent;

  /** Where the request frame ends in its write batch; set while the batch is written. */
  int batchEndOffset;

  /**
   * The connection of the current attempt, or null. Written by whichever thread hands the call over
   * (the caller on the hot path, else the control executor); volatile because the deadline and a
   * cancel read it from elsewhere to find the loop to abandon the attempt on.
   */
  private volatile RequestChannel connection;

  /**
   * What the answer ending the attempt now says of its node, as an {@link AnswerBlame}'s ordinal (a
   * byte, not a reference, keeps every call's object 8 bytes smaller); set by the thread that ends
   * it, just before, and read by that thread.
   */
  private byte nodeFault;

  /**
   * The one place the runtime's view of the call changes; false when another thread got there
   * first.
   */
  final boolean transition(State from, State to) {
    return STATE.compareAndSet(this, (byte) from.ordinal(), (byte) to.ordinal());
  }

  final State state() {
    return STATES[(byte) STATE.getVolatile(this)];
  }

  /** True once the runtime is done with the call, whatever the caller did with the future. */
  final boolean isFinished() {
    return state() == State.DONE;
  }

  /** True once the whole request frame of the current attempt reached the kernel. */
  public final boolean wasSent() {
    return sent;
  }

  /**
   * The connection's writer takes the call into a batch; false when the runtime is already done
   * with it (timed out or cancelled while queued), and then it must not be written.
   */
  final boolean beginWriting() {
    sent = false;
    return transition(State.UNSENT, State.WRITTEN);
  }

  /** The whole frame reached the kernel (on the loop). */
  final void markSent() {
    sent = true;
  }

  /** The connection of the current attempt, or null between attempts. */
  final RequestChannel connection() {
    return connection;
  }

  /** The key of the connection the current attempt is on, or null between attempts. */
  final ConnectionKey currentKey() {
    RequestChannel c = connection;
    return c == null ? null : c.key();
  }

  /** The attempt's connection in words, for messages. */
  final String describeConnection() {
    RequestChannel c = connection;
    return c == null ? "no connection" : c.toString();
  }

  /** The endpoint of {@code c} in grammar form, as events name it; null for none. */
  static String endpointOf(RequestChannel c) {
    return c instanceof BaseConnection b ? b.endpointText() : null;
  }

  /** The call is about to be handed to {@code c}, or (null) left its connection to go elsewhere. */
  final void moveTo(RequestChannel c) {
    connection = c;
  }

  /** The attempt ending now failed through the server's fault, not the connection's. */
  final void blameTheNode(boolean fault) {
    blameTheNode(fault ? AnswerBlame.NODE_FAULT : AnswerBlame.NONE);
  }

  /** What the answer ending the attempt now says of its node. */
  final void blameTheNode(AnswerBlame blame) {
    nodeFault = (byte) blame.ordinal();
  }

  /**
   * Whether the server was at fault for the attempt that ends now; asked once, by the thread ending
   * it.
   */
  final AnswerBlame takeNodeFault() {
    AnswerBlame fault = BLAMES[nodeFault];
    nodeFault = 0;
    return fault;
  }

  /**
   * The write of a batch holding only this call finished: on success the whole frame reached the
   * kernel; on failure it did not leave whole, and the connection must close.
   */
  @Override
  public final void operationComplete(ChannelFuture future) {
    if (future.isSuccess()) {
      onSent();
    } else {
      RequestChannel c = connection;
      if (c != null) {
        c.onWriteFailed(future.cause());
      }
    }
  }

  // ---- what a connection asks of the call, and tells it ----

  /** The REQUEST flags the caller chose (the wire's {@code COMPRESSED} is decided per attempt). */
  abstract int flags();

  /** The call's extras, or null for a plain call. */
  abstract CallExtras extrasIfAny();

  /**
   * The node group's router of the attempt now on a node, or null: asked before the attempt ends,
   * by what reports on the node later (a stream's end).
   */
  final NodeRouter nodeRouter() {
    CallExtras e = extrasIfAny();
    return e == null ? null : e.router();
  }

  abstract boolean isOneway();

  /** The call is about to be handed to {@code c}; called by the thread handing it over. */
  abstract void attachedTo(RequestChannel c);

  /** Which attempt runs now; the connection compares it with the one a timer was armed for. */
  abstract int attemptNumber();

  /** The call waits in {@code kind} from now (on {@code endpoint}, or null). */
  abstract void waitsIn(CallPhase.Kind kind, String endpoint);

  /**
   * Appends this attempt's REQUEST frame to {@code out}: {@code bodies} is what the connection
   * negotiated, {@code names} its cache of the names' wire form.
   */
  abstract void writeRequest(ByteBuf out, BodyCompression bodies, EncodedNames names);

  /** This attempt's REQUEST as a value (datagrams, batches). */
  abstract Request toRequest();

  /** The whole frame reached the kernel (on the loop). */
  abstract void onSent();

  /** The server answered (on the loop). */
  abstract void onResponse(Status status, Map<String, String> metadata, byte[] body);

  /**
   * The server answered with {@code failure}, which blames its node as {@code blame} says: the
   * retry policy judges it as {@code outcome}, or it ends the call (null). On the loop.
   */
  final void onFailedAnswer(TetherException failure, AnswerBlame blame, Attempt.Outcome outcome) {
    blameTheNode(blame);
    if (outcome == null) {
      fail(failure);
    } else {
      attemptFailed(outcome, failure);
    }
  }

  /** An attempt failed as {@code outcome}: the retry policy decides whether the call runs again. */
  abstract void attemptFailed(Attempt.Outcome outcome, TetherException cause);

  /** The server proved it did not run the request. */
  abstract void onRefused(String why);

  /** The attempt ended before its frame was whole on the wire. */
  abstract void onNotSent(Throwable cause);

  /** The connection closed while this call waited for its answer. */
  abstract void onConnectionLost(Throwable cause);

  /** The attempt got no answer in time; its connection already freed its slot. */
  abstract void onAttemptTimedOut();

  /** Ends the call with {@code t}, whatever its retry policy (a request its connection refuses). */
  abstract void fail(Throwable t);
}
