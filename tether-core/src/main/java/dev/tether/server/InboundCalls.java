package dev.tether.server;

import dev.tether.internal.IntMap;
import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.spi.Scheduler;
import dev.tether.transport.EventLoopScheduler;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inbound calls of one server connection: the table of requests accepted and not yet answered,
 * the in-flight limit WELCOME announced, and the hand-off to the dispatcher. It is the responder
 * every accepted request answers through, and it owns the connection's response writer. Everything
 * here runs on the connection's event loop, except {@link #respond} and {@link #onewayDone}, which
 * hop onto it.
 *
 * <p>The connection's streams are in its stream table, {@link ServerStreams}, beside this class and
 * keyed by request id like these calls; this class stays about calls that answer once.
 */
final class InboundCalls implements Responder {
  private static final Logger log = LoggerFactory.getLogger("dev.tether.trace.connection");
  private static final byte[] EMPTY = new byte[0];

  private final Channel channel;
  private final Dispatcher dispatcher;
  private final ResponseWriter writer;

  /** This connection's own queue in SERIALIZED mode; null in the other modes. */
  private final SerialLane lane;

  /**
   * The accepted twoway requests whose answer is not written yet, by request id: the ServiceCall
   * while one waits for or runs on an executor (so CANCEL can stop it), else the Request. An answer
   * whose id is no longer here was cancelled, and is dropped instead of written.
   */
  private final IntMap<Object> unanswered = new IntMap<>();

  private int highestAcceptedId;

  /** Accepted requests not yet answered (twoway) or finished (oneway). */
  private int inFlight;

  /** Requests answered (twoway) or finished (oneway) on this connection. */
  private long served;

  /**
   * How many requests may be in flight before new ones are refused; WELCOME's figure, set at HELLO.
   */
  private int maxInFlight = Integer.MAX_VALUE;

  /** Calls this read burst queued on the shared run queue that were not started yet. */
  private int queuedCallsToStart;

  /**
   * The loop's own timer, for the run queue's stall checks (firing there wakes no other thread);
   * made on first use.
   */
  private Scheduler loopTimer;

  InboundCalls(Channel channel, Dispatcher dispatcher, BodyCompression compression) {
    this.channel = channel;
    this.dispatcher = dispatcher;
    this.lane = dispatcher.newLane();
    this.writer = new ResponseWriter(channel, this, compression);
  }

  /** The in-flight limit the client was told in WELCOME. */
  void limitInFlight(int maxConcurrentRequests) {
    maxInFlight = maxConcurrentRequests;
  }

  /** The highest request id accepted so far: what a GOAWAY promises to answer. */
  int highestAcceptedId() {
    return highestAcceptedId;
  }

  /** Accepted requests not finished yet. */
  int inFlight() {
    return inFlight;
  }

  /** Requests finished on this connection. */
  long served() {
    return served;
  }

  /**
   * Accepts {@code r} and hands it to the dispatcher, or answers REFUSED when the connection is
   * draining ({@code accepting} false) or at its in-flight limit: either way the client learns that
   * a refused request did not run.
   */
  void handle(Request r, Peer peer, boolean accepting) {
    // First of all: every answer to a twoway request, whatever branch writes it, finds its id here.
    if (!r.isOneway()) {
      unanswered.put(r.requestId(), r);
    }
    if (!accepting || inFlight >= maxInFlight) {
      refuse(r);
      return;
    }
    if (Integer.compareUnsigned(r.requestId(), highestAcceptedId) > 0) {
      highestAcceptedId = r.requestId();
    }
    inFlight++;
    ServiceCall call = dispatcher.dispatch(r, peer, this, lane);
    if (call != null && lane == null) {
      queuedCallsToStart++;
    }
    // A queued call replaces its request, so a CANCEL can stop it. No answer can be encoded before
    // this line: encoding runs on this loop, in a later task.
    if (call != null && !r.isOneway()) {
      unanswered.put(r.requestId(), call);
    }
  }

  /**
   * The client gave up on a request: a queued one never runs, a running one finishes unanswered,
   * and an answer already produced but not yet written is dropped. A CANCEL for a request already
   * answered, or unknown, changes nothing.
   */
  void cancel(int requestId) {
    Object accepted = unanswered.remove(requestId);
    if (accepted instanceof ServiceCall call) {
      call.cancel();
    }
  }

  /**
   * Answers REFUSED without running the request; a oneway request is dropped (nobody waits for an
   * answer). The answer counts as in flight until written, as every answer does.
   */
  private void refuse(Request r) {
    if (r.isOneway()) {
      log.debug(
          "dropping oneway {}.{} from {}: not accepted",
          r.service(),
          r.operation(),
          channel.remoteAddress());
      return;
    }
    inFlight++;
    respond(new Response(r.requestId(), Status.REFUSED, Map.of(), EMPTY));
  }

  /**
   * Starts the calls this read burst queued on the shared run queue, if any (see RunQueue#start).
   */
  void startQueued() {
    if (queuedCallsToStart > 0) {
      int queued = queuedCallsToStart;
      queuedCallsToStart = 0;
      if (loopTimer == null) {
        loopTimer = new EventLoopScheduler(channel.eventLoop());
      }
      dispatcher.startQueued(queued, loopTimer);
    }
  }

  @Override
  public void respond(Response response) {
    writer.enqueue(response);
  }

  @Override
  public void onewayDone() {
    if (channel.eventLoop().inEventLoop()) {
      requestFinished();
      return;
    }
    try {
      channel.eventLoop().execute(this::requestFinished);
    } catch (RejectedExecutionException loopStopped) {
      // The server closed while the oneway call ran; there is nothing left to account for.
    }
  }

  /**
   * True when {@code requestId} still waits for its answer, which is then to be written; on the
   * loop.
   */
  boolean takeForAnswer(int requestId) {
    return unanswered.remove(requestId) != null;
  }

  /**
   * One request left the connection: answered, cancelled, or a oneway call that ended; on the loop.
   */
  void requestFinished() {
    inFlight--;
    served++;
  }

  /** The connection closed: answers not written yet never will be; on the loop. */
  void discardUnwritten() {
    writer.discardQueued();
  }
}
