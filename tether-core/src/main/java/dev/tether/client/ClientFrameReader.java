package dev.tether.client;

import dev.tether.ProtocolException;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.Cancel;
import dev.tether.protocol.Frame;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.Ping;
import dev.tether.protocol.Pong;
import dev.tether.protocol.Response;
import dev.tether.protocol.StreamCredit;
import dev.tether.protocol.StreamEnd;
import dev.tether.protocol.StreamItem;
import dev.tether.protocol.TopologyUpdate;
import dev.tether.protocol.Welcome;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.List;

/**
 * Reads what the server sends on one connection, between the frame decoder and the connection:
 * answers PING, keeps the cluster view WELCOME and TOPOLOGY announce, times read bursts for the
 * liveness rules, refuses frames a client never gets, and applies GOAWAY (the calls the server
 * never accepted are refused, so they retry elsewhere). WELCOME and GOAWAY change the connection's
 * state through the connection. Answers to calls skip this handler: the decoder gives them to the
 * connection directly. Runs on the connection's event loop.
 */
final class ClientFrameReader extends ChannelInboundHandlerAdapter {
  private final ClientConnection connection;
  private final ConnectionHost host;
  private final ConnectionWatch watch;
  private final AnnouncedTopology topology;
  private final PendingCalls pending;
  private final CloseCause closing;
  private final ClientHandshake handshake;

  ClientFrameReader(
      ClientConnection connection,
      ConnectionWatch watch,
      AnnouncedTopology topology,
      PendingCalls pending,
      CloseCause closing,
      ClientHandshake handshake) {
    this.connection = connection;
    this.host = connection.host;
    this.watch = watch;
    this.topology = topology;
    this.pending = pending;
    this.closing = closing;
    this.handshake = handshake;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    watch.onFrameRead();
    if (msg instanceof Response r) {
      connection.onResponse(r.requestId(), r.status(), r.metadata(), r.body());
    } else if (msg instanceof Welcome w) {
      if (connection.isHandshaking()
          && learn(ctx, w.primary(), w.alternates(), w.epoch(), "WELCOME")) {
        connection.handleWelcome(w);
      }
    } else if (msg instanceof Ping p) {
      ctx.writeAndFlush(new Pong(p.data()), ctx.voidPromise());
    } else if (msg instanceof StreamItem
        || msg instanceof StreamCredit
        || msg instanceof StreamEnd
        || msg instanceof Cancel) {
      connection.streams.onFrame((Frame) msg);
    } else if (msg instanceof GoAway g) {
      onGoAway(ctx, g);
    } else if (msg instanceof TopologyUpdate t) {
      // The server's view changed while connected: keep it, and let the runtime apply it now.
      if (learn(ctx, t.primary(), t.alternates(), t.epoch(), "TOPOLOGY")) {
        host.onTopologyAnnounced(connection);
      }
    } else if (!(msg instanceof Pong)) {
      failProtocol(
          ctx,
          new ProtocolException(
              "unexpected " + msg.getClass().getSimpleName() + " from the server"),
          false);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    watch.onReadBurstEnded();
    ctx.fireChannelReadComplete();
  }

  /**
   * Requests above the server's last accepted id never ran: refuse them so they retry elsewhere. A
   * GOAWAY instead of WELCOME (the server is full, or does not speak this version) fails the
   * connect: the caller goes on to the next endpoint. MAX_AGE's notice (no last id yet) drains
   * nothing: the key's supervisor opens the replacement and moves new calls once it is ready.
   */
  private void onGoAway(ChannelHandlerContext ctx, GoAway g) {
    boolean handshaking = connection.isHandshaking();
    if (!handshaking && g.reason() == GoAwayReason.MAX_AGE && g.acceptsFurtherRequests()) {
      // Still served: the connection keeps its calls until its replacement is ready.
      host.onConnectionAged(connection, "the server moved it on: " + g.message());
      return;
    }
    if (handshaking) {
      closing.failedBecause(handshake.refusedBy(g));
    } else if (!g.reason().isGraceful()) {
      closing.failedBecause(
          new ProtocolException("server sent GOAWAY(" + g.reason() + "): " + g.message()));
    }
    if (!handshaking) {
      connection.startDraining(
          "GOAWAY(" + g.reason() + ", last accepted " + g.lastAcceptedId() + "): " + g.message());
    }
    for (CallAttempt inv : pending.takeNotAccepted(g.lastAcceptedId())) {
      inv.onRefused("the server is going away (" + g.reason() + ") and never accepted the request");
    }
    if (handshaking) {
      ctx.channel()
          .close(); // still CONNECTING when it closes: the connect fails with the GOAWAY's words
    } else {
      connection.closeIfDrained();
    }
  }

  /**
   * Takes the view a frame announced and tells when it changed. A view that is not in endpoint
   * grammar is a protocol error: the connection closes with GOAWAY, and false is returned.
   */
  private boolean learn(
      ChannelHandlerContext ctx,
      String primary,
      List<String> alternates,
      long epoch,
      String frame) {
    try {
      if (topology.replaceWith(primary, alternates, epoch, frame)) {
        host.events()
            .emit(
                TetherEvent.Kind.TOPOLOGY_CHANGED,
                connection.endpointText(),
                frame + " announced " + topology.describe(),
                null);
      }
      return true;
    } catch (ProtocolException e) {
      failProtocol(ctx, e, true);
      return false;
    }
  }

  /**
   * The server broke the protocol in a way only the client sees: close, after a GOAWAY saying why
   * when {@code tellServer}.
   */
  private void failProtocol(
      ChannelHandlerContext ctx, ProtocolException cause, boolean tellServer) {
    closing.failedBecause(cause);
    if (tellServer) {
      ctx.writeAndFlush(new GoAway(GoAwayReason.PROTOCOL_ERROR, 0, cause.getMessage()))
          .addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.close();
    }
  }
}
