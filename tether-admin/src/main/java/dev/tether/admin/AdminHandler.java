package dev.tether.admin;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateHandler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Answers the admin routes. Snapshots block on the runtimes' loops for a moment, so they are taken
 * on the admin's worker thread, never on this event loop; a {@link ResponseOrder} then writes each
 * connection's answers in the order of its requests.
 */
@ChannelHandler.Sharable
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  /** Answers one connection may have written and not yet sent, beyond the high-water mark. */
  static final long MAX_UNSENT_BYTES = 1 << 20;

  private final AdminSite site;
  private final HostCheck hosts;

  AdminHandler(AdminSite site, HostCheck hosts) {
    this.site = site;
    this.hosts = hosts;
  }

  /** What a request gets: a whole reply, or the start of an event stream. */
  private sealed interface Answer permits Reply, Stream {
    /** Whether nothing may follow this answer on its connection. */
    boolean endsConnection();
  }

  /** One whole answer. */
  private record Reply(HttpResponseStatus status, String type, byte[] body, boolean keepAlive)
      implements Answer {
    Reply(HttpResponseStatus status, String type, String body, boolean keepAlive) {
      this(status, type, body.getBytes(StandardCharsets.UTF_8), keepAlive);
    }

    @Override
    public boolean endsConnection() {
      return !keepAlive;
    }
  }

  /** {@code /events}: the connection carries the stream from then on. */
  private record Stream() implements Answer {
    @Override
    public boolean endsConnection() {
      return true;
    }
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    ResponseOrder order = ResponseOrder.of(ctx.channel());
    if (!order.accepts()) {
      return; // an earlier answer ended the connection
    }
    CompletableFuture<Answer> answer =
        order.full() ? completed(tooManyPipelined()) : answer(request);
    order.then(answer, Answer::endsConnection, a -> write(ctx, a));
  }

  private void write(ChannelHandlerContext ctx, Answer answer) {
    if (answer instanceof Reply reply) {
      write(ctx, reply);
    } else {
      openStream(ctx);
    }
  }

  private static Answer tooManyPipelined() {
    return new Reply(
        HttpResponseStatus.SERVICE_UNAVAILABLE,
        "text/plain",
        "more than " + ResponseOrder.MAX_PENDING + " requests waiting for answers\n",
        false);
  }

  /** The answer to a request; never completes exceptionally. */
  private CompletableFuture<Answer> answer(FullHttpRequest request) {
    if (request.decoderResult().isFailure()) {
      // A broken request line or header: answer, then close, since the byte stream is lost.
      return completed(
          new Reply(HttpResponseStatus.BAD_REQUEST, "text/plain", "malformed request\n", false));
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    if (request.method() != HttpMethod.GET) {
      // Then closed: the encoder does not know a HEAD's answer carries no body, so a client that
      // sent one must not read the next answer after it.
      return completed(
          new Reply(HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain", "only GET\n", false));
    }
    if (request.headers().getAll(HttpHeaderNames.HOST).size() > 1) {
      // RFC 9112 3.2: which of them names the page is anyone's guess, so neither is trusted.
      return completed(
          new Reply(
              HttpResponseStatus.BAD_REQUEST, "text/plain", "more than one Host header\n", false));
    }
    if (!hosts.serves(request.headers().get(HttpHeaderNames.HOST))) {
      return completed(
          new Reply(
              HttpResponseStatus.MISDIRECTED_REQUEST,
              "text/plain",
              "this page does not answer to that host name: use its address, localhost, or a name"
                  + " given to TetherAdmin.builder().allowHost(...)\n",
              false));
    }
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    if (!authorized(request, uri)) {
      return completed(
          new Reply(
              HttpResponseStatus.UNAUTHORIZED,
              "text/plain",
              "this page needs its access token: add ?token=... to the address\n",
              keepAlive));
    }
    return switch (uri.path()) {
      case "/", "/index.html" ->
          completed(
              new Reply(HttpResponseStatus.OK, "text/html; charset=utf-8", site.page(), keepAlive));
      case "/status.json" -> statusJson(keepAlive);
      case "/events" -> completed(new Stream());
      case "/metrics" -> metrics(keepAlive);
      default ->
          completed(
              new Reply(HttpResponseStatus.NOT_FOUND, "text/plain", "no such page\n", keepAlive));
    };
  }

  private static <T> CompletableFuture<T> completed(T value) {
    return CompletableFuture.completedFuture(value);
  }

  private boolean authorized(FullHttpRequest request, QueryStringDecoder uri) {
    String token = site.accessToken();
    if (token == null) {
      return true;
    }
    String offered = null;
    List<String> query = uri.parameters().get("token");
    if (query != null && !query.isEmpty()) {
      offered = query.get(0);
    }
    String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
    if (header != null && header.startsWith("Bearer ")) {
      offered = header.substring("Bearer ".length());
    }
    // Constant time, so response timing does not tell how much of a guess was right.
    return offered != null
        && MessageDigest.isEqual(
            offered.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
  }

  private CompletableFuture<Answer> statusJson(boolean keepAlive) {
    byte[] fresh = site.freshStatusJson();
    if (fresh != null) {
      return completed(new Reply(HttpResponseStatus.OK, "application/json", fresh, keepAlive));
    }
    return CompletableFuture.supplyAsync(site::statusJson, site.worker())
        .handle(
            (body, failure) ->
                snapshot(body, failure, "application/json", "no snapshot: ", keepAlive));
  }

  private static Answer snapshot(
      byte[] body, Throwable failure, String type, String failed, boolean keepAlive) {
    if (failure != null) {
      return new Reply(
          HttpResponseStatus.SERVICE_UNAVAILABLE, "text/plain", failed + failure + "\n", keepAlive);
    }
    return new Reply(HttpResponseStatus.OK, type, body, keepAlive);
  }

  private CompletableFuture<Answer> metrics(boolean keepAlive) {
    if (!site.hasMetrics()) {
      // 501, not 404: the route exists, this class path cannot serve it (the page works without
      // it).
      return completed(
          new Reply(
              HttpResponseStatus.NOT_IMPLEMENTED,
              "text/plain",
              "no metrics: /metrics needs " + site.missingMetricsJars() + " on the class path\n",
              keepAlive));
    }
    return CompletableFuture.supplyAsync(site::metricsText, site.worker())
        .handle(
            (body, failure) ->
                snapshot(
                    body == null ? null : body.getBytes(StandardCharsets.UTF_8),
                    failure,
                    "text/plain; version=0.0.4; charset=utf-8",
                    "no scrape: ",
                    keepAlive));
  }

  private void openStream(ChannelHandlerContext ctx) {
    if (site.streams().size() >= SseHub.MAX_STREAMS) {
      write(
          ctx,
          new Reply(
              HttpResponseStatus.SERVICE_UNAVAILABLE,
              "text/plain",
              "too many pages open\n",
              false));
      return;
    }
    // A stream is quiet between samples, however short the idle timeout; one whose page went away
    // is dropped by the hub once its socket stops taking writes.
    if (ctx.pipeline().get(IdleStateHandler.class) != null) {
      ctx.pipeline().remove(IdleStateHandler.class);
    }
    HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    head.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE)
        .set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    ctx.writeAndFlush(head);
    // The first message, taken on the worker like every snapshot, then the stream joins the hub.
    CompletableFuture.supplyAsync(site::welcomeJson, site.worker())
        .whenComplete(
            (body, failure) -> {
              if (failure != null) {
                ctx.close();
                return;
              }
              SseHub.send(ctx.channel(), "welcome", body);
              if (!site.streams().add(ctx.channel())) {
                ctx.close();
              }
            });
  }

  private static void write(ChannelHandlerContext ctx, Reply reply) {
    if (ctx.channel().bytesBeforeWritable() > MAX_UNSENT_BYTES) {
      // Requests already read when reading paused may still be answered; past this, none is.
      ctx.close();
      return;
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, reply.status(), Unpooled.wrappedBuffer(reply.body()));
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, reply.type())
        .setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length)
        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
    if (reply.keepAlive()) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      ctx.writeAndFlush(response);
    } else {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }

  /**
   * A client that does not read its answers is not read either: while its answers wait in the
   * outbound buffer past the high-water mark, nothing more is read from it, so its requests stall
   * in its own socket instead of growing the server's (direct) memory. Reading resumes once it has
   * taken them.
   */
  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    ctx.channel().config().setAutoRead(ctx.channel().isWritable());
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A reset or broken client: that connection goes, the server keeps serving the others.
    ctx.close();
  }
}
