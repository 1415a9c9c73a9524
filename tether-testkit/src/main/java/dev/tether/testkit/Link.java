package dev.tether.testkit;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.util.ReferenceCountUtil;
import java.net.SocketAddress;

/**
 * One connection through a {@link FaultProxy}: the socket a client opened to the proxy ({@code
 * downstream}) and the socket the proxy opened to its target for it ({@code upstream}), with a
 * {@link Flow} each way between them.
 *
 * <p>Confined to the proxy's event loop: every method runs there, so fields are plain.
 */
final class Link {
  /** Where a link is in its life. */
  enum State {
    /** The client is accepted and waits, unread, while the proxy connects to the target. */
    CONNECTING,
    /** Both sockets are connected; bytes flow as the proxy's mode says. */
    OPEN,
    /** Closing was decided (terminal): held bytes are released and late events are ignored. */
    CLOSED
  }

  private final FaultProxy proxy;
  private final Channel downstream;
  private final Flow clientToServer;
  private final Flow serverToClient;

  /** Set by {@link #connect}, before any event can reach this link; non-null from then on. */
  private Channel upstream;

  private State state = State.CONNECTING;

  Link(FaultProxy proxy, Channel downstream) {
    this.proxy = proxy;
    this.downstream = downstream;
    this.clientToServer = new Flow(proxy, this, Direction.CLIENT_TO_SERVER);
    this.serverToClient = new Flow(proxy, this, Direction.SERVER_TO_CLIENT);
  }

  /** Starts relaying: connects to {@code target} and reads the client once that succeeds. */
  void connect(Bootstrap upstreamBootstrap, SocketAddress target) {
    downstream.pipeline().addLast(new Relay(this, Direction.CLIENT_TO_SERVER));
    ChannelFuture connecting =
        upstreamBootstrap
            .clone()
            .handler(new Relay(this, Direction.SERVER_TO_CLIENT))
            .connect(target);
    upstream = connecting.channel();
    connecting.addListener((ChannelFutureListener) this::onConnectDone);
  }

  /** Applies the proxy's cut to this link: {@code null} disarms it. */
  void armCut(FaultProxy.Cut cut) {
    clientToServer.disarmCut();
    serverToClient.disarmCut();
    if (cut != null) {
      flow(cut.direction()).armCut(cut.bytes());
    }
  }

  /** The proxy's mode changed: start or stop reading, and forward what became due. */
  void onModeChanged() {
    clientToServer.drain();
    serverToClient.drain();
    updateReading();
  }

  /** Closes both sockets with RST (SO_LINGER 0), dropping whatever is held. */
  void reset() {
    if (state == State.CLOSED) {
      return;
    }
    transitionTo(State.CLOSED);
    resetChannel(downstream);
    resetChannel(upstream);
  }

  /** Closes both sockets with FIN once what was already forwarded is written. */
  void close() {
    if (state == State.CLOSED) {
      return;
    }
    transitionTo(State.CLOSED);
    closeGracefully(downstream);
    closeGracefully(upstream);
  }

  boolean isOpen() {
    return state == State.OPEN;
  }

  /** The socket that bytes travelling in {@code direction} leave by. */
  Channel sink(Direction direction) {
    return direction == Direction.CLIENT_TO_SERVER ? upstream : downstream;
  }

  /**
   * Reads from a socket go on only while nothing is frozen and the bytes have somewhere to go: the
   * other socket can take more and the flow is not full.
   */
  void updateReading() {
    if (state != State.OPEN) {
      return;
    }
    boolean flowing = !proxy.isFrozen();
    downstream.config().setAutoRead(flowing && upstream.isWritable() && clientToServer.hasRoom());
    upstream.config().setAutoRead(flowing && downstream.isWritable() && serverToClient.hasRoom());
  }

  /** A flow met the end of its source: the other socket ends the same way. */
  void handleSourceEnded(boolean reset) {
    if (reset) {
      reset();
    } else {
      close();
    }
  }

  /** A cut fired: the link is dead now; its sockets are reset once {@code lastWrite} is done. */
  void resetAfter(ChannelFuture lastWrite) {
    transitionTo(State.CLOSED);
    lastWrite.addListener(
        written -> {
          resetChannel(downstream);
          resetChannel(upstream);
        });
  }

  /** Closes {@code channel} with RST: SO_LINGER 0 makes the kernel drop its buffers and reset. */
  static void resetChannel(Channel channel) {
    if (!channel.isOpen()) {
      return;
    }
    try {
      channel.config().setOption(ChannelOption.SO_LINGER, 0);
    } catch (ChannelException socketAlreadyGone) {
      // Nothing left to reset; closing below still frees the descriptor.
    }
    channel.close();
  }

  private static void closeGracefully(Channel channel) {
    channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  private void onConnectDone(ChannelFuture connected) {
    if (state == State.CLOSED) {
      connected.channel().close();
    } else if (!connected.isSuccess()) {
      reset(); // the client sees the target's refusal as a reset of its own connection
    } else {
      transitionTo(State.OPEN);
      updateReading();
    }
  }

  private void handleRead(Direction direction, ByteBuf data) {
    if (state == State.OPEN) {
      flow(direction).handleRead(data);
    } else {
      data.release();
    }
  }

  private void handleEnd(Direction direction, boolean reset) {
    switch (state) {
      case CONNECTING -> close(); // the client left before the target answered
      case OPEN -> flow(direction).handleEnd(reset);
      case CLOSED -> {}
    }
  }

  private Flow flow(Direction direction) {
    return direction == Direction.CLIENT_TO_SERVER ? clientToServer : serverToClient;
  }

  /** The only place {@link #state} changes; CLOSED is never left and is announced to the proxy. */
  private void transitionTo(State next) {
    if (state == State.CLOSED) {
      return;
    }
    state = next;
    if (next == State.CLOSED) {
      clientToServer.release();
      serverToClient.release();
      proxy.onLinkClosed(this);
    }
  }

  /** Hands one socket's events to its link: one instance per socket. */
  private static final class Relay extends ChannelInboundHandlerAdapter {
    private final Link link;

    /** The direction of the bytes this socket reads. */
    private final Direction direction;

    /** Whether this socket broke (RST, I/O error) rather than ended with FIN. */
    private boolean broken;

    Relay(Link link, Direction direction) {
      this.link = link;
      this.direction = direction;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof ByteBuf data) {
        link.handleRead(direction, data);
      } else {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      link.handleEnd(direction, broken);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      link.updateReading();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      broken = true; // typically "Connection reset by peer"; the close that follows ends the flow
      ctx.close();
    }
  }
}
