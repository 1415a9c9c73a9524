package dev.tether.server;

import dev.tether.protocol.BodyCompression;
import dev.tether.protocol.FrameDecoder;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.GoAway;
import dev.tether.protocol.GoAwayReason;
import dev.tether.protocol.ProtocolVersion;
import dev.tether.protocol.TopologyUpdate;
import dev.tether.protocol.Welcome;
import dev.tether.spi.Scheduler;
import dev.tether.spi.VerifiedPeer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * The server's half of the handshake on one connection: it answers HELLO with the preface and
 * WELCOME (or, for a connection the server turned away, with GOAWAY), keeps the handshake deadline,
 * and remembers what the handshake learnt (who the client is, which protocol minor it speaks) and
 * what it told (the cluster view, so a later change is announced only when it is news). Lives on
 * the connection's loop; the connection decides when each step happens.
 */
final class ServerHandshake {
  private final BodyCompression compression;

  /** Non-null only while the deadline is set: from activation until the handshake ended. */
  private Scheduler.Cancellable deadline;

  /**
   * The client's chain as TLS verified it; set when the TLS handshake succeeds, empty otherwise.
   */
  private List<X509Certificate> verifiedChain = List.of();

  /** The minor protocol version of the client's preface; set at HELLO. */
  private int clientMinorVersion;

  /** The cluster view this client was last told, in WELCOME or TOPOLOGY; non-null from HELLO on. */
  private TopologyUpdate announcedTopology;

  ServerHandshake(BodyCompression compression) {
    this.compression = compression;
  }

  /**
   * Runs {@code onPassed} on the connection's loop unless the handshake ends within {@code nanos}.
   */
  void startDeadline(ServerClock clock, Channel channel, Runnable onPassed, long nanos) {
    if (nanos > 0) {
      deadline =
          clock.schedule(
              channel,
              () -> {
                deadline = null;
                onPassed.run();
              },
              nanos);
    }
  }

  /** The handshake ended one way or the other: the deadline no longer applies. */
  void cancelDeadline() {
    if (deadline != null) {
      deadline.cancel();
      deadline = null;
    }
  }

  /** TLS finished its handshake: the client's verified certificates, if it presented any. */
  void tlsHandshakeDone(SslHandler tls) {
    verifiedChain = VerifiedPeer.chainOf(tls);
  }

  /**
   * Answers HELLO with this side's preface and {@code welcome}; returns who the client is, for
   * every request it sends from now on.
   */
  Peer welcome(ChannelHandlerContext ctx, Welcome welcome, String clientId) {
    readClientVersion(ctx);
    Welcome readable = readsEpochs() ? welcome : welcome.withoutEpoch();
    announcedTopology = TopologyUpdate.of(readable);
    ByteBuf out = ctx.alloc().ioBuffer(128);
    FrameWriter.writePreface(out, compression.capabilities());
    FrameWriter.encode(readable, out);
    ctx.writeAndFlush(out, ctx.voidPromise());
    return new Peer(ctx.channel().remoteAddress(), verifiedChain, clientId);
  }

  /**
   * Preface and GOAWAY instead of WELCOME. A 1.0 client cannot read the TOO_MANY_CONNECTIONS
   * reason, so it is told SHUTDOWN, which also sends it elsewhere; the message says why either way.
   * With no handshake deadline to bound the wait for the client's close, the server closes itself.
   */
  void refuse(ChannelHandlerContext ctx, String why) {
    readClientVersion(ctx);
    GoAwayReason reason = speaks1Dot1() ? GoAwayReason.TOO_MANY_CONNECTIONS : GoAwayReason.SHUTDOWN;
    GoAway goAway = new GoAway(reason, 0, why);
    ByteBuf out = ctx.alloc().ioBuffer(16 + FrameWriter.encodedSize(goAway));
    FrameWriter.writePreface(out);
    FrameWriter.encode(goAway, out);
    ChannelFuture written = ctx.writeAndFlush(out);
    if (deadline == null) {
      written.addListener(ChannelFutureListener.CLOSE);
    }
  }

  /**
   * The TOPOLOGY frame to send when the server's view is now {@code current}: null when the client
   * already has that view or, speaking 1.0, cannot read the frame (it learns on reconnect).
   */
  TopologyUpdate topologyNews(Welcome current) {
    if (!speaks1Dot1()) {
      return null;
    }
    TopologyUpdate now = TopologyUpdate.of(readsEpochs() ? current : current.withoutEpoch());
    if (now.equals(announcedTopology)) {
      return null;
    }
    announcedTopology = now;
    return now;
  }

  /**
   * The GOAWAY reason that moves this client to a new connection: MAX_AGE from protocol 1.2 on,
   * SHUTDOWN (which an older client drains the same way) before; read after HELLO.
   */
  GoAwayReason moveReason() {
    return clientMinorVersion >= ProtocolVersion.FIRST_MINOR_OF_1_2
        ? GoAwayReason.MAX_AGE
        : GoAwayReason.SHUTDOWN;
  }

  /** True when the client reads a cluster view's epoch (protocol 1.4 on); read after HELLO. */
  private boolean readsEpochs() {
    return clientMinorVersion >= ProtocolVersion.FIRST_MINOR_OF_1_4;
  }

  private boolean speaks1Dot1() {
    return clientMinorVersion >= ProtocolVersion.FIRST_MINOR_OF_1_1;
  }

  private void readClientVersion(ChannelHandlerContext ctx) {
    FrameDecoder decoder = ctx.pipeline().get(FrameDecoder.class);
    clientMinorVersion = decoder == null ? 0 : decoder.peerMinorVersion();
  }
}
