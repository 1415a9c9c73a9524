package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectionState;
import dev.tether.protocol.Batch;
import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A connected UDP socket for datagram proxies: each request leaves as one datagram holding one
 * REQUEST frame, with no handshake and no response. A call completes once its datagram is written.
 */
final class DatagramConnection extends ChannelInboundHandlerAdapter implements RequestChannel {
  private final ClientRuntime runtime;
  private final ConnectionKey key;
  private final Candidate candidate;
  private final CompletableFuture<RequestChannel> ready = new CompletableFuture<>();
  private final BatchQueue batchQueue = new BatchQueue();
  private volatile ConnectionState state = ConnectionState.CONNECTING;
  /** Non-null once {@link #connect()} ran. */
  private Channel channel;

  DatagramConnection(ClientRuntime runtime, ConnectionKey key, Candidate candidate) {
    this.runtime = runtime;
    this.key = key;
    this.candidate = candidate;
  }

  @Override
  public void connect() {
    ChannelFuture f = candidate.transport().connect(candidate.address(), candidate.connectTimeout(), this);
    channel = f.channel();
    f.addListener(done -> {
      if (done.isSuccess()) {
        state = ConnectionState.ACTIVE;
        ready.complete(this);
      } else {
        onClosed();
        ready.completeExceptionally(
            new ConnectFailedException("cannot open a datagram socket to " + candidate.endpoint(), done.cause()));
      }
    });
    channel.closeFuture().addListener(closed -> onClosed());
  }

  private void onClosed() {
    state = ConnectionState.CLOSED;
    runtime.pool().remove(key, this);
  }

  @Override
  public void send(Invocation invocation) {
    invocation.attachedTo(this);
    writeDatagram(invocation.toRequest()).addListener(done -> {
      if (done.isSuccess()) {
        invocation.onSent();
      } else {
        invocation.onNotSent(done.cause());
      }
    });
  }

  @Override
  public void queueBatch(Invocation invocation) {
    batchQueue.add(invocation);
  }

  @Override
  public void flushBatch() {
    Batch batch = batchQueue.drain();
    if (batch != null) {
      writeDatagram(batch);
    }
  }

  private ChannelFuture writeDatagram(Frame frame) {
    ByteBuf datagram = channel.alloc().ioBuffer(FrameCodec.encodedSize(frame));
    FrameCodec.encode(frame, datagram);
    return channel.writeAndFlush(datagram);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // An ICMP port-unreachable surfaces here on a connected socket; datagrams are best effort.
  }

  @Override
  public boolean isUsable() {
    ConnectionState s = state;
    return s == ConnectionState.ACTIVE || s == ConnectionState.CONNECTING;
  }

  @Override
  public CompletableFuture<RequestChannel> ready() {
    return ready;
  }

  @Override
  public ConnectionKey key() {
    return key;
  }

  @Override
  public io.netty.util.concurrent.Future<?> closeFuture() {
    return channel.closeFuture();
  }

  @Override
  public io.netty.util.concurrent.Future<?> close() {
    return channel != null
        ? channel.close()
        : io.netty.util.concurrent.ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
  }

  @Override
  public SocketAddress remoteAddress() {
    return candidate.address();
  }

  @Override
  public String connectionId() {
    return key.connectionId();
  }

  @Override
  public Duration timeout() {
    return key.timeout();
  }

  @Override
  public ConnectionState state() {
    return state;
  }

  @Override
  public boolean isSecure() {
    return false;
  }

  @Override
  public String transport() {
    return candidate.transport().name();
  }

  @Override
  public String toString() {
    return candidate.endpoint().toString();
  }
}
