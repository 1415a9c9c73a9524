package dev.tether.grpc.client;

import dev.tether.TetherException;
import dev.tether.grpc.GrpcHeaders;
import dev.tether.grpc.MessageDeframer;
import dev.tether.spi.Scheduler;
import io.grpc.Status;
import io.grpc.StatusException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.util.List;

/**
 * What {@link GrpcClientLink} reads: the frames of the server's answers. A unary call's headers,
 * message and trailers are gathered and handed to the runtime whole; a stream, once accepted, goes
 * to its {@link StreamSink} message by message. RST_STREAM REFUSED_STREAM proves a call never ran;
 * any other reset loses it. The connection's event loop only.
 */
final class AnswerReader extends Http2EventAdapter {
  private final GrpcClientLink link;
  private final CallTable calls;

  AnswerReader(GrpcClientLink link, CallTable calls) {
    this.link = link;
    this.calls = calls;
  }

  @Override
  public void onPingAckRead(ChannelHandlerContext ctx, long data) {
    link.onPingAnswered(data);
  }

  @Override
  public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
    link.onSettings(settings);
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean end) {
    Exchange e = calls.get(streamId);
    if (e == null) {
      return;
    }
    Status invalid = e.headersSeen || end ? null : StatusOfHttp.invalid(headers);
    if (e.accepted) {
      streamHeaders(streamId, e, headers, end, invalid);
      return;
    }
    if (invalid != null && e.headers == null) { // not gRPC's answer: nothing after it counts
      e.headers = headers;
      failedAnswer(streamId, e, StatusOfHttp.trailersOf(invalid));
      return;
    }
    if (e.sink != null && !end) {
      accept(streamId, e, headers);
      return;
    }
    if (e.headers == null && !end) {
      e.headers = headers;
    } else {
      e.trailers = headers;
    }
    if (end) {
      if (e.headers == null) { // Trailers-Only: the one HEADERS is both
        e.headers = headers;
      }
      answered(streamId, e);
    }
  }

  /** HEADERS on an accepted stream: its response headers, then its trailers. */
  private void streamHeaders(
      int streamId, Exchange e, Http2Headers headers, boolean end, Status invalid) {
    if (invalid != null) {
      failedStream(streamId, e, invalid);
      return;
    }
    if (!e.headersSeen && !end) {
      e.headersSeen = true;
      e.headers = headers;
      e.sink.onHeaders(headers);
      return;
    }
    calls.end(streamId);
    e.sink.onTrailers(headers);
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int streamDependency,
      short weight,
      boolean exclusive,
      int padding,
      boolean endOfStream) {
    onHeadersRead(ctx, streamId, headers, padding, endOfStream);
  }

  @Override
  public int onDataRead(
      ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    int processed = data.readableBytes() + padding;
    Exchange e = calls.get(streamId);
    if (e == null) {
      return processed;
    }
    if (!calls.hold(e, data.readableBytes())) { // never kept: its window goes back at once
      overBudget(streamId, e);
      return processed;
    }
    if (e.accepted) {
      e.held += data.readableBytes();
      e.deframer.add(data);
      feed(streamId, e, endOfStream);
      return padding; // the rest is given back as the caller reads it
    }
    e.deframer.add(data);
    try {
      for (MessageDeframer.Message m = e.deframer.next(); m != null; m = e.deframer.next()) {
        e.messages.add(e.messageOf(m));
        if (e.messages.size() > 1) { // a unary answer has one: stop before buffering more
          throw Status.INTERNAL
              .withDescription("a unary answer had more than one message")
              .asException();
        }
      }
    } catch (StatusException bad) {
      failedAnswer(streamId, e, StatusOfHttp.trailersOf(bad.getStatus()));
      return processed;
    }
    if (endOfStream) {
      answered(streamId, e);
    }
    return processed;
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    Exchange e = calls.end(streamId);
    if (e == null) {
      return;
    }
    if (e.accepted) {
      e.sink.onLost(
          "the server reset the stream (RST_STREAM " + Http2Error.valueOf(errorCode) + ")");
      return;
    }
    if (errorCode == Http2Error.REFUSED_STREAM.code()) {
      e.call.onRefused("the server refused the stream (RST_STREAM REFUSED_STREAM)");
    } else {
      Http2Error error = Http2Error.valueOf(errorCode);
      e.call.onLost(
          new TetherException(
              "the server reset the stream (RST_STREAM "
                  + (error == null ? errorCode : error)
                  + ")"));
    }
  }

  private void answered(int id, Exchange e) {
    calls.end(id);
    Http2Headers trailers = e.trailers;
    // Response headers that came on their own were checked as they came (onHeadersRead), and a
    // call whose headers failed the check carries the trailers that say so: only Trailers-Only
    // headers, or none, are checked here, not every unary answer's twice.
    Status invalid =
        e.headers == null || e.headers == e.trailers ? StatusOfHttp.invalid(e.headers) : null;
    if (invalid != null) {
      trailers = StatusOfHttp.trailersOf(invalid);
    } else if (trailers == null || trailers.get(GrpcHeaders.STATUS) == null) {
      trailers = StatusOfHttp.trailersFor(e.headers);
    }
    GrpcStatuses.endCall(e.call, Envelopes.answer(e.headers, e.messages, trailers), trailers);
  }

  /**
   * The answer cannot be read: the call ends with {@code trailers}' status, the stream is reset.
   */
  private void failedAnswer(int id, Exchange e, Http2Headers trailers) {
    e.trailers = trailers;
    answered(id, e);
    link.cancelStream(id);
  }

  /**
   * A server stream's response HEADERS: the server took it, so the runtime's call is answered (no
   * retry from now on) and the messages go to the stream's sink as they come.
   */
  private void accept(int id, Exchange e, Http2Headers headers) {
    e.accepted = true;
    e.headersSeen = true;
    e.headers = headers;
    e.sink.onAccepted(new Control(id));
    e.call.onStreamAccepted(Envelopes.answer(headers, List.of(), null));
  }

  /**
   * The HEADERS of a stream the caller sends on were written: it is accepted now, since its
   * messages go straight to the stream and are not kept to be sent again elsewhere.
   */
  void acceptWritten(int id, Exchange e) {
    if (calls.get(id) != e) {
      return; // ended before the write completed
    }
    e.accepted = true;
    e.call.onWritten();
    e.sink.onAccepted(new Control(id));
    e.call.onStreamAccepted(Envelopes.answer(null, List.of(), null));
  }

  /**
   * Hands an accepted stream's whole messages to its sink; its trailers or a bad message end it. A
   * message's window is its caller's to give back, less what {@link #prepay} gave for it already.
   */
  private void feed(int id, Exchange e, boolean endOfStream) {
    try {
      for (MessageDeframer.Message m = e.deframer.next(); m != null; m = e.deframer.next()) {
        int wireBytes = 5 + m.bytes().length;
        // Prepaid bytes are all this message's: never its last byte, so the caller owes >= 1.
        int owed = wireBytes - e.prepaid;
        e.held -= wireBytes;
        calls.handedOn(e, wireBytes);
        e.prepaid = 0;
        e.unconsumed++;
        e.sink.onMessage(e.messageOf(m), owed);
      }
    } catch (StatusException bad) {
      failedStream(id, e, bad.getStatus());
      return;
    }
    if (endOfStream) { // DATA ended the stream: no trailers, no status
      calls.end(id);
      e.sink.onTrailers(StatusOfHttp.trailersFor(e.headers));
      return;
    }
    prepay(id, e);
  }

  /**
   * Gives back the window of a message in progress while its caller has read every message before
   * it: a message larger than the window could never finish otherwise. The deframer refuses a
   * message over the size limit, so this lets a stream hold at most one such message beyond its
   * window; messages the caller has not read yet stop it, so a slow reader still slows the server.
   */
  private void prepay(int id, Exchange e) {
    if (e.unconsumed == 0 && e.held > e.prepaid) {
      int more = e.held - e.prepaid;
      e.prepaid = e.held;
      link.writer().giveBack(id, more);
    }
  }

  /** The caller of stream {@code id} read a message and gives back {@code wireBytes} of window. */
  private void readByCaller(int id, int wireBytes) {
    link.writer().giveBack(id, wireBytes);
    Exchange e = calls.get(id);
    if (e != null && e.accepted) {
      e.unconsumed--;
      prepay(id, e);
    }
  }

  /**
   * The call's DATA would take the connection's answers past their bound: it ends
   * RESOURCE_EXHAUSTED and its stream is reset; the others go on. Its server may have run it.
   */
  private void overBudget(int id, Exchange e) {
    Status status =
        Status.RESOURCE_EXHAUSTED.withDescription(
            "the answers on this connection would hold more than "
                + calls.maxHeldBytes()
                + " bytes");
    if (e.accepted) {
      failedStream(id, e, status);
    } else {
      failedAnswer(id, e, StatusOfHttp.trailersOf(status));
    }
  }

  /** An accepted stream's answer cannot be read: it ends with {@code status}, and is reset. */
  private void failedStream(int id, Exchange e, Status status) {
    calls.end(id);
    e.sink.onTrailers(StatusOfHttp.trailersOf(status));
    link.cancelStream(id);
  }

  /** What a stream's caller does to it, hopping onto the connection's loop. */
  private final class Control implements StreamSink.Control {
    private final int id;

    Control(int id) {
      this.id = id;
    }

    @Override
    public void consumed(int wireBytes) {
      link.ctx().executor().execute(() -> readByCaller(id, wireBytes));
    }

    @Override
    public void send(byte[] message) {
      link.ctx().executor().execute(() -> link.writer().writeData(id, message, false));
    }

    @Override
    public void halfClose() {
      link.ctx().executor().execute(() -> link.writer().writeData(id, null, true));
    }

    @Override
    public Scheduler.Cancellable schedule(Runnable task, long delayNanos) {
      return link.owner().schedule(task, delayNanos);
    }

    @Override
    public void cancel() {
      link.ctx()
          .executor()
          .execute(
              () -> {
                if (calls.end(id) != null) {
                  link.cancelStream(id);
                }
              });
    }
  }
}
