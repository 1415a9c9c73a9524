package dev.tether.grpc.client;

import dev.tether.spi.ClientWireProtocol;
import dev.tether.spi.Scheduler;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * A stream's sink that also tells the runtime how the accepted stream ended, so its node's outlier
 * detection counts a stream the server ended with its own fault (INTERNAL, UNAVAILABLE, DATA_LOSS,
 * ...) as it counts such a unary answer: the trailers' status blames the node as {@link
 * GrpcStatuses#blameOf} reads it; a stream lost or cancelled blames nothing. Everything else passes
 * to the caller's sink unchanged.
 */
final class StreamEnds implements StreamSink {
  private final StreamSink sink;
  private final ClientWireProtocol.Call call;

  private StreamEnds(StreamSink sink, ClientWireProtocol.Call call) {
    this.sink = sink;
    this.call = call;
  }

  /**
   * {@code sink} (null for none) reporting the end of {@code call}'s stream once it is accepted.
   */
  static StreamSink reporting(StreamSink sink, ClientWireProtocol.Call call) {
    return sink == null ? null : new StreamEnds(sink, call);
  }

  @Override
  public void onAccepted(Control control) {
    sink.onAccepted(new CancelReported(control));
  }

  @Override
  public long remainingMillis() {
    return sink.remainingMillis();
  }

  @Override
  public void onHeaders(Http2Headers headers) {
    sink.onHeaders(headers);
  }

  @Override
  public void onSent(int wireBytes) {
    sink.onSent(wireBytes);
  }

  @Override
  public void onMessage(byte[] message, int wireBytes) {
    sink.onMessage(message, wireBytes);
  }

  @Override
  public void onTrailers(Http2Headers trailers) {
    call.onStreamEnd(GrpcStatuses.blameOf(trailers));
    sink.onTrailers(trailers);
  }

  @Override
  public void onLost(String why) {
    call.onStreamEnd(ClientWireProtocol.Blame.NONE);
    sink.onLost(why);
  }

  /** The caller's control of the stream: a cancel ends it, blaming nothing. */
  private final class CancelReported implements Control {
    private final Control control;

    CancelReported(Control control) {
      this.control = control;
    }

    @Override
    public void consumed(int wireBytes) {
      control.consumed(wireBytes);
    }

    @Override
    public void cancel() {
      call.onStreamEnd(ClientWireProtocol.Blame.NONE);
      control.cancel();
    }

    @Override
    public void send(byte[] message) {
      control.send(message);
    }

    @Override
    public void halfClose() {
      control.halfClose();
    }

    @Override
    public Scheduler.Cancellable schedule(Runnable task, long delayNanos) {
      return control.schedule(task, delayNanos);
    }
  }
}
