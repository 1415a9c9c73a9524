package dev.tether.testkit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The listening socket of a {@link FaultProxy}, which can be closed and bound again to the same
 * address. Confined to the proxy's event loop, like everything it touches.
 */
final class Listener {
  /** Where the listening socket is in its life. */
  enum State {
    /** The socket accepts connections. */
    LISTENING,
    /** The address is being bound. */
    BINDING,
    /** There is no socket: connects are refused. */
    STOPPED,
    /** Closed for good (terminal). */
    CLOSED
  }

  private final ServerBootstrap bootstrap;
  private final EventLoop loop;
  private State state = State.STOPPED;

  /** Non-null only while LISTENING. */
  private Channel socket;

  /** Non-null only while BINDING; a bind that completes while it is not this one is unwanted. */
  private ChannelFuture binding;

  Listener(ServerBootstrap bootstrap, EventLoop loop) {
    this.bootstrap = bootstrap;
    this.loop = loop;
  }

  /**
   * Listens on {@code address} unless already listening or binding; the future completes once the
   * socket is bound (its channel tells the port bound when {@code address} asked for port 0).
   */
  ChannelFuture listen(InetSocketAddress address) {
    return switch (state) {
      case LISTENING -> socket.newSucceededFuture();
      case BINDING -> binding;
      case STOPPED -> bind(address);
      case CLOSED -> throw new IllegalStateException("the listener is closed");
    };
  }

  /** Closes the socket; the future completes once connects are refused. */
  Future<Void> stop() {
    closeSocket();
    transitionTo(State.STOPPED);
    return nextIoTurn();
  }

  void close() {
    closeSocket();
    transitionTo(State.CLOSED);
  }

  private ChannelFuture bind(InetSocketAddress address) {
    transitionTo(State.BINDING);
    binding = bootstrap.bind(address);
    binding.addListener((ChannelFutureListener) this::onBindDone);
    return binding;
  }

  private void onBindDone(ChannelFuture bound) {
    if (bound != binding) {
      bound.channel().close(); // stopped or closed while binding
      return;
    }
    binding = null;
    if (bound.isSuccess()) {
      socket = bound.channel();
      transitionTo(State.LISTENING);
    } else {
      transitionTo(State.STOPPED);
    }
  }

  private void closeSocket() {
    if (socket != null) {
      socket.close();
      socket = null;
    }
    if (binding != null) {
      binding.channel().close();
      binding = null;
    }
  }

  /**
   * Completes after the event loop's next I/O phase. NIO really closes a socket registered with a
   * selector only when the selector next runs: until then, a closed listener still accepts.
   */
  private Future<Void> nextIoTurn() {
    Promise<Void> turned = loop.newPromise();
    // Scheduled from the loop, the task waits for the next round of tasks, which follows I/O.
    loop.schedule(() -> turned.setSuccess(null), 0, TimeUnit.NANOSECONDS);
    return turned;
  }

  /** The only place {@link #state} changes; CLOSED is never left. */
  private void transitionTo(State next) {
    if (state != State.CLOSED) {
      state = next;
    }
  }
}
