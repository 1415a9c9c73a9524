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
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Answers the admin routes for one connection at a time. Snapshots block on the runtimes' loops for
 * a moment, so they are taken on the admin's worker thread, never on this event loop.
 */
@ChannelHandler.Sharable
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private final AdminSite site;

  AdminHandler(AdminSite site) {
    this.site = site;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (request.decoderResult().isFailure()) {
      // A broken request line or header: answer, then close, since the byte stream is lost.
      respond(ctx, HttpResponseStatus.BAD_REQUEST, "text/plain", "malformed request\n", false);
      return;
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    if (request.method() != HttpMethod.GET) {
      respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain", "only GET\n", keepAlive);
      return;
    }
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    if (!authorized(request, uri)) {
      respond(
          ctx,
          HttpResponseStatus.UNAUTHORIZED,
          "text/plain",
          "this page needs its access token: add ?token=... to the address\n",
          keepAlive);
      return;
    }
    switch (uri.path()) {
      case "/", "/index.html" ->
          respond(ctx, HttpResponseStatus.OK, "text/html; charset=utf-8", site.page(), keepAlive);
      case "/status.json" -> statusJson(ctx, keepAlive);
      case "/events" -> openStream(ctx);
      case "/metrics" -> metrics(ctx, keepAlive);
      default ->
          respond(ctx, HttpResponseStatus.NOT_FOUND, "text/plain", "no such page\n", keepAlive);
    }
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

  private void statusJson(ChannelHandlerContext ctx, boolean keepAlive) {
    byte[] fresh = site.freshStatusJson();
    if (fresh != null) {
      respond(ctx, HttpResponseStatus.OK, "application/json", fresh, keepAlive);
      return;
    }
    CompletableFuture.supplyAsync(site::statusJson, site.worker())
        .whenComplete((body, failure) -> answerSnapshot(ctx, body, failure, keepAlive));
  }

  private void answerSnapshot(
      ChannelHandlerContext ctx, byte[] body, Throwable failure, boolean keepAlive) {
    if (failure != null) {
      respond(
          ctx,
          HttpResponseStatus.SERVICE_UNAVAILABLE,
          "text/plain",
          "no snapshot: " + failure + "\n",
          keepAlive);
    } else {
      respond(ctx, HttpResponseStatus.OK, "application/json", body, keepAlive);
    }
  }

  private void metrics(ChannelHandlerContext ctx, boolean keepAlive) {
    if (!site.hasMetrics()) {
      // 501, not 404: the route exists, this class path cannot serve it (the page works without
      // it).
      respond(
          ctx,
          HttpResponseStatus.NOT_IMPLEMENTED,
          "text/plain",
          "no metrics: /metrics needs " + site.missingMetricsJars() + " on the class path\n",
          keepAlive);
      return;
    }
    CompletableFuture.supplyAsync(site::metricsText, site.worker())
        .whenComplete(
            (body, failure) -> {
              if (failure != null) {
                respond(
                    ctx,
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "text/plain",
                    "no scrape: " + failure + "\n",
                    keepAlive);
              } else {
                respond(
                    ctx,
                    HttpResponseStatus.OK,
                    "text/plain; version=0.0.4; charset=utf-8",
                    body,
                    keepAlive);
              }
            });
  }

  private void openStream(ChannelHandlerContext ctx) {
    if (site.streams().size() >= SseHub.MAX_STREAMS) {
      respond(
          ctx,
          HttpResponseStatus.SERVICE_UNAVAILABLE,
          "text/plain",
          "too many pages open\n",
          false);
      return;
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

  private static void respond(
      ChannelHandlerContext ctx,
      HttpResponseStatus status,
      String type,
      String body,
      boolean keepAlive) {
    respond(ctx, status, type, body.getBytes(StandardCharsets.UTF_8), keepAlive);
  }

  private static void respond(
      ChannelHandlerContext ctx,
      HttpResponseStatus status,
      String type,
      byte[] body,
      boolean keepAlive) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, type)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
    if (keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      ctx.writeAndFlush(response);
    } else {
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A reset or broken client: that connection goes, the server keeps serving the others.
    ctx.close();
  }
}
