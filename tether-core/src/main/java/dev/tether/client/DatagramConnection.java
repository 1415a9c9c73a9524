package dev.tether.client;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectionState;
import dev.tether.observe.ConnectionStatus;
import dev.tether.protocol.Batch;
import dev.tether.protocol.Frame;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Request;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A connected UDP socket for datagram proxies: each request leaves as one datagram holding one
 * REQUEST frame, with no handshake and no response. A call completes once its datagram is written.
 */
final class DatagramConnection extends BaseConnection {
  DatagramConnection(ConnectionHost host, ConnectionKey key, Candidate candidate) {
    super(host, key, candidate);
  }

  @Override
  public void connect() {
    ChannelFuture f =
        candidate.transport().connect(candidate.address(), candidate.connectTimeout(), this);
    channel = f.channel();
    // Both listeners run on the channel's loop, which owns the state.
    f.addListener(
        done -> {
          if (done.isSuccess()) {
            moveTo(ConnectionState.ACTIVE, "datagram socket open", null);
            ready.complete(this);
          } else {
            moveTo(ConnectionState.CLOSED, "cannot open a datagram socket", done.cause());
            ready.completeExceptionally(
                new ConnectFailedException(
                    "cannot open a datagram socket to " + candidate.endpoint(), done.cause()));
          }
        });
    channel
        .closeFuture()
        .addListener(closed -> moveTo(ConnectionState.CLOSED, "socket closed", null));
  }

  /**
   * Every state change, on the channel's loop: CONNECTING, then ACTIVE once the socket is open,
   * then CLOSED for good (a datagram socket is never drained). Closing also tells the runtime,
   * once.
   */
  private void moveTo(ConnectionState next, String why, Throwable cause) {
    if (transitionTo(next, why, cause) && next == ConnectionState.CLOSED) {
      host.onConnectionClosed(this, false, null);
    }
  }

  @Override
  public void send(CallAttempt invocation) {
    invocation.attachedTo(this);
    if (!invocation.beginWriting()) {
      return;
    }
    writeDatagram(invocation.toRequest())
        .addListener(
            done -> {
              if (done.isSuccess()) {
                invocation.onSent();
              } else {
                invocation.onNotSent(done.cause());
              }
            });
  }

  /** The whole batch as one datagram: a datagram is delivered whole or not at all. */
  @Override
  public CompletableFuture<Void> sendBatch(List<? extends CallAttempt> calls) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    List<Request> requests = new ArrayList<>(calls.size());
    for (CallAttempt inv : calls) {
      requests.add(inv.toRequest());
    }
    writeDatagram(new Batch(requests))
        .addListener(
            f -> {
              if (f.isSuccess()) {
                done.complete(null);
              } else {
                done.completeExceptionally(
                    BatchFrames.lost(calls.size(), calls.size(), this, f.cause()));
              }
            });
    return done;
  }

  private ChannelFuture writeDatagram(Frame frame) {
    ByteBuf datagram = channel.alloc().ioBuffer(FrameWriter.encodedSize(frame));
    FrameWriter.encode(frame, datagram);
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
  protected ConnectionStatus statusOnLoop(long nowNanos) {
    return new ConnectionStatus(
        endpointText(),
        key.connectionId(),
        state,
        0,
        Duration.ofNanos(nowNanos - createdNanos),
        0,
        0,
        null);
  }
}
