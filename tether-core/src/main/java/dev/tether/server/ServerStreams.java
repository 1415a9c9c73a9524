package dev.tether.server;

import dev.tether.ProtocolException;
import dev.tether.RawStreamService;
import dev.tether.ServerCallObserver;
import dev.tether.internal.IntMap;
import dev.tether.protocol.Frame;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamResume;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * The streams one server connection carries, by the id each has on it: the sibling of {@link
 * InboundCalls} for requests that open or resume a stream. It answers what it can at once (no such
 * service, refused while draining, unknown token) and hands the rest to the stream, which lives on
 * in the {@link StreamRegistry} when the connection closes. Runs on the connection's event loop.
 */
final class ServerStreams {
  private static final byte[] EMPTY = new byte[0];

  private final Channel channel;
  private final StreamRegistry registry;
  private final IntMap<ServerStream> byId = new IntMap<>();

  ServerStreams(Channel channel, StreamRegistry registry) {
    this.channel = channel;
    this.registry = registry;
  }

  /**
   * A REQUEST with the STREAM flag: an opening, or a RESUME of a stream a lost connection carried.
   */
  void handle(Request r, Peer peer, boolean accepting) {
    if (!accepting) {
      answer(r, Status.REFUSED, "the server is going away and opens no stream");
    } else if ((r.flags() & Request.RESUME) != 0) {
      resume(r, peer);
    } else {
      open(r, peer);
    }
  }

  private void open(Request r, Peer peer) {
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
                answer(r, refusal.status(), refusal.message());
              } else {
                channel.eventLoop().execute(() -> start(service, r, peer, watched));
              }
            });
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

  private void resume(Request r, Peer peer) {
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
    ServerStream stream = byId.get(frame.requestId());
    if (stream == null) {
      return false; // ended meanwhile: what was in flight for it means nothing now
    }
    stream.onFrame(frame, this);
    return true;
  }

  /** A stream left this connection (ended, or resumed elsewhere); from any thread. */
  void forget(int streamId) {
    if (channel.eventLoop().inEventLoop()) {
      byId.remove(streamId);
    } else {
      try {
        channel.eventLoop().execute(() -> byId.remove(streamId));
      } catch (RejectedExecutionException loopStopped) {
        // The server closed its loops: the table went with the connection.
      }
    }
  }

  /** Streams on this connection now. */
  int size() {
    return byId.size();
  }

  /** The connection closed: each stream waits in the registry for its client to resume it. */
  void connectionClosed() {
    for (ServerStream s : byId.removeAll()) {
      s.connectionLost(this);
    }
  }
}
