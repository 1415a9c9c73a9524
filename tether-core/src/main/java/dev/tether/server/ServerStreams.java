package dev.tether.server;

import dev.tether.ProtocolException;
import dev.tether.RawStreamService;
import dev.tether.ServerCallObserver;
import dev.tether.internal.IntMap;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamItem;
import dev.tether.protocol.StreamResume;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * The streams one server connection carries, by the id each has on it: the sibling of {@link
 * InboundCalls} for requests that open or resume a stream. It answers what it can at once (no such
 * service, refused while draining or past the connection's stream cap, unknown token) and hands the
 * rest to the stream, which lives on in the {@link StreamRegistry} when the connection closes. It
 * refuses what breaks the protocol before anything is kept (an item of a server stream or past its
 * credit, an id still in use): the connection ends with GOAWAY(PROTOCOL_ERROR) and the stream is
 * lost. Runs on the connection's event loop.
 */
final class ServerStreams {
  private static final byte[] EMPTY = new byte[0];

  private final Channel channel;
  private final StreamRegistry registry;
  private final IntMap<ServerStream> byId = new IntMap<>();

  /**
   * Openings whose interceptors run, by id: FALSE, or TRUE once a CANCEL for it came meanwhile (the
   * stream then never starts).
   */
  private final IntMap<Boolean> screening = new IntMap<>();

  /** The client broke the protocol: nothing it sends counts any more. */
  private boolean violated;

  ServerStreams(Channel channel, StreamRegistry registry) {
    this.channel = channel;
    this.registry = registry;
  }

  /**
   * A REQUEST with the STREAM flag: an opening, or a RESUME of a stream a lost connection carried.
   */
  void handle(Request r, Peer peer, boolean accepting) {
    if (violated) {
      return;
    }
    ServerStream holder = byId.get(r.requestId());
    if (holder != null || screening.get(r.requestId()) != null) {
      violation(
          "stream id " + Integer.toUnsignedString(r.requestId()) + " is in use by an open stream",
          holder);
    } else if (!accepting) {
      answer(r, Status.REFUSED, "the server is going away and opens no stream");
    } else if ((r.flags() & Request.RESUME) != 0) {
      resume(r, peer);
    } else {
      open(r, peer);
    }
  }

  private void open(Request r, Peer peer) {
    if (refusedAtCap(r)) {
      return;
    }
    RawStreamService service = registry.service(r.service());
    if (service == null) {
      answer(r, Status.SERVICE_NOT_FOUND, "no stream service \"" + r.service() + "\"");
      return;
    }
    if (service instanceof TypedStreamService typed && !typed.hasOperation(r.operation())) {
      answer(
          r,
          Status.OPERATION_NOT_FOUND,
          "stream service \"" + r.service() + "\" has no stream " + r.operation());
      return;
    }
    Oversight oversight = registry.oversight();
    if (oversight.isEmpty()) {
      start(service, r, peer, null);
      return;
    }
    // An interceptor may block (a lookup of who may call), so it runs where the service would,
    // never on the loop.
    screening.put(r.requestId(), Boolean.FALSE);
    registry
        .executor()
        .execute(
            () -> {
              RequestContext call = new RequestContext(r, peer, 0, registry.ticker());
              ServerCallObserver.Execution watched =
                  ObservedExecution.watch(oversight.observer(), call);
              Interceptors.Refusal refusal;
              try (ServerCallObserver.Scope entered = ObservedExecution.enter(watched)) {
                refusal = oversight.interceptors().check(call);
              }
              if (refusal != null) {
                ObservedExecution.end(watched, refusal.status().name(), refusal.why());
              }
              onLoop(() -> screened(service, r, peer, watched, refusal));
            });
  }

  /** The interceptors judged the opening; on the loop. */
  private void screened(
      RawStreamService service,
      Request r,
      Peer peer,
      ServerCallObserver.Execution watched,
      Interceptors.Refusal refusal) {
    Boolean cancelled = screening.remove(r.requestId());
    if (refusal != null) {
      answer(r, refusal.status(), refusal.message());
    } else if (cancelled == null || cancelled) {
      // The client cancelled meanwhile, or broke the protocol: the service never runs.
      ObservedExecution.end(watched, Status.STREAM_LOST.name(), null);
    } else {
      start(service, r, peer, watched);
    }
  }

  /**
   * @param watched what hears how the opening went; null for nothing
   */
  private void start(
      RawStreamService service, Request r, Peer peer, ServerCallObserver.Execution watched) {
    if (!channel.isActive()) {
      ObservedExecution.end(watched, Status.STREAM_LOST.name(), null);
      return; // closed while the interceptors ran: no stream, no one to answer
    }
    ServerStream stream = new ServerStream(registry, r, peer);
    byId.put(r.requestId(), stream);
    stream.open(service, r, peer, channel, this, watched);
  }

  /**
   * Answers REFUSED when the connection has its cap of streams: openings and RESUMEs alike, or a
   * client could gather on one connection the streams it left on others.
   */
  private boolean refusedAtCap(Request r) {
    int cap = registry.maxStreamsPerConnection();
    if (byId.size() + screening.size() < cap) {
      return false;
    }
    answer(r, Status.REFUSED, "this connection has its " + cap + " streams open already");
    return true;
  }

  private void resume(Request r, Peer peer) {
    if (refusedAtCap(r)) {
      return;
    }
    StreamResume asked;
    try {
      asked = StreamResume.decodeRequest(r.body());
    } catch (ProtocolException e) {
      answer(r, Status.STREAM_LOST, e.getMessage());
      return;
    }
    ServerStream stream = registry.find(asked.token());
    if (stream == null) {
      answer(r, Status.STREAM_LOST, "unknown stream: the server restarted or forgot it");
      return;
    }
    byId.put(r.requestId(), stream);
    stream.resume(r, asked, peer, channel, this);
  }

  private void answer(Request r, Status status, String why) {
    channel.writeAndFlush(
        new Response(r.requestId(), status, Map.of(Response.ERROR_MESSAGE, why), EMPTY),
        channel.voidPromise());
  }

  /**
   * A stream frame, or a CANCEL; false when no stream of that id is here (a CANCEL is then a
   * call's).
   */
  boolean onFrame(Frame frame) {
    int id = frame.requestId();
    ServerStream stream = byId.get(id);
    if (stream == null) {
      if (frame instanceof Cancel && screening.get(id) != null) {
        screening.put(id, Boolean.TRUE);
        return true;
      }
      return false; // ended meanwhile: what was in flight for it means nothing now
    }
    if (violated) {
      return true;
    }
    String refusal = frame instanceof StreamItem item ? stream.refusal(item) : null;
    if (refusal != null) {
      violation(refusal, stream);
      return true;
    }
    stream.onFrame(frame, this);
    if (frame instanceof Cancel || frame instanceof StreamCredit c && stream.acknowledgesEnd(c)) {
      byId.remove(id); // the client is done with the stream: its id is free again
    }
    return true;
  }

  /**
   * The client broke the protocol: the connection ends as for a malformed frame, and {@code stream}
   * (null for none), which it broke, is lost at once, what it held dropped.
   */
  private void violation(String why, ServerStream stream) {
    violated = true;
    if (stream != null) {
      stream.lose("the client broke the protocol: " + why);
    }
    FrameDecoder decoder = channel.pipeline().get(FrameDecoder.class);
    if (decoder != null) {
      decoder.failAfterDecoding(channel, new ProtocolException(why));
    } else {
      channel.close();
    }
  }

  /**
   * {@code stream} left this connection (ended, or resumed elsewhere); from any thread. A newer
   * stream that took the id meanwhile stays.
   */
  void forget(int streamId, ServerStream stream) {
    onLoop(
        () -> {
          if (byId.get(streamId) == stream) {
            byId.remove(streamId);
          }
        });
  }

  private void onLoop(Runnable task) {
    if (channel.eventLoop().inEventLoop()) {
      task.run();
      return;
    }
    try {
      channel.eventLoop().execute(task);
    } catch (RejectedExecutionException loopStopped) {
      // The server closed its loops: the table went with the connection.
    }
  }

  /** Streams on this connection now. */
  int size() {
    return byId.size();
  }

  /** The connection closed: each stream waits in the registry for its client to resume it. */
  void connectionClosed() {
    screening.removeAll();
    for (ServerStream s : byId.removeAll()) {
      s.connectionLost(this);
    }
  }
}
