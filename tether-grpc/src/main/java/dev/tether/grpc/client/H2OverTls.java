package dev.tether.grpc.client;

import dev.tether.TetherException;
import dev.tether.spi.ClientWireProtocol;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * gRPC over the ssl transport: the runtime's own TLS handler (its client context: the trust, the
 * key, the hostname check and the reloads Tether's connections use) also asks ALPN for {@code h2},
 * and the connection opens only if the server agreed. A failed handshake or a server that chose no
 * HTTP/2 fails the connection's opening with a cause that says so, which the runtime treats as a
 * failed connect (one backoff, the call free to go elsewhere). On the channel's event loop.
 */
final class H2OverTls extends ChannelInboundHandlerAdapter {
  /** HTTP/2 over TLS, as ALPN names it (RFC 7540, 3.3). */
  static final String H2 = "h2";

  private final ClientWireProtocol.Connection owner;
  private final SSLEngine engine;

  private H2OverTls(ClientWireProtocol.Connection owner, SSLEngine engine) {
    this.owner = owner;
    this.engine = engine;
  }

  /**
   * Before the channel connects: when the transport put TLS in front, asks it for {@code h2} and
   * adds the check of the server's choice; returns whether the channel is under TLS.
   */
  static boolean install(Channel channel, ClientWireProtocol.Connection owner) {
    SslHandler tls = channel.pipeline().get(SslHandler.class);
    if (tls == null) {
      return false;
    }
    SSLEngine engine = tls.engine();
    // A round trip through the engine's parameters keeps the context's own (hostname check, SNI).
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setApplicationProtocols(new String[] {H2});
    engine.setSSLParameters(parameters);
    channel.pipeline().addLast(new H2OverTls(owner, engine));
    return true;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent done) {
      ctx.pipeline().remove(this);
      if (!done.isSuccess()) {
        owner.onFailed(
            new TetherException(
                "TLS handshake with " + owner.authority() + " failed: " + describe(done.cause()),
                done.cause()));
      } else if (!H2.equals(engine.getApplicationProtocol())) {
        owner.onFailed(new TetherException(noH2(engine.getApplicationProtocol())));
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  private String noH2(String chosen) {
    return "TLS with "
        + owner.authority()
        + " agreed on no HTTP/2: gRPC needs ALPN \""
        + H2
        + "\", the server "
        + (chosen == null || chosen.isEmpty()
            ? "chose no ALPN protocol"
            : "chose \"" + chosen + "\"");
  }

  /** The TLS engine's own words (an untrusted certificate, a name that does not match). */
  private static String describe(Throwable cause) {
    return cause.getMessage() == null ? cause.toString() : cause.getMessage();
  }
}
