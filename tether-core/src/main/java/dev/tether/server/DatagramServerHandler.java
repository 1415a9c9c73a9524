package dev.tether.server;

import dev.tether.protocol.Batch;
import dev.tether.protocol.Request;
import dev.tether.protocol.Response;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** Serves oneway requests that arrive as datagrams; nothing is sent back. */
final class DatagramServerHandler extends ChannelInboundHandlerAdapter implements Responder {
  private final Dispatcher dispatcher;

  DatagramServerHandler(Dispatcher dispatcher) {
    this.dispatcher = dispatcher;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof Request r) {
      dispatch(r);
    } else if (msg instanceof Batch b) {
      for (Request r : b.requests()) {
        dispatch(r);
      }
    }
  }

  private void dispatch(Request r) {
    if (r.isOneway()) {
      dispatcher.dispatch(r, Peer.UNKNOWN, this);
    }
  }

  @Override
  public void respond(Response response) {
    // Datagram requests are oneway; there is no one to answer.
  }

  @Override
  public void onewayDone() {}

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A bad datagram affects nothing else; the decoder already dropped and counted it.
  }
}
