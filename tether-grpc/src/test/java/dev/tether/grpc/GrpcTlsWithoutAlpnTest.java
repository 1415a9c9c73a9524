package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ClientAuth;
import dev.tether.TetherServer;
import dev.tether.testkit.TestCertificates;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A TLS client that names no ALPN protocol on a port that serves gRPC too: the first bytes inside
 * TLS decide, so an HTTP/2 preface is served as gRPC and a half-sent one is closed at the handshake
 * deadline like on a plain port.
 */
@Timeout(60)
class GrpcTlsWithoutAlpnTest {
  private final TestCertificates certificates = TestCertificates.create();
  private TetherServer server;

  @BeforeEach
  void start() {
    server =
        TetherGrpc.server()
            .service(new InteropService().definition())
            .configure(
                TetherServer.builder()
                    .endpoints("ssl -h 127.0.0.1 -p 0")
                    .tls(certificates.serverConfig(ClientAuth.OPTIONAL))
                    .property("tether.server.handshakeTimeout", "3s"))
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** A TLS socket that trusts the test server and offers no ALPN protocol. */
  private SSLSocket connect() throws IOException, GeneralSecurityException {
    X509TrustManager trustAll =
        new X509TrustManager() {
          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        };
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, new TrustManager[] {trustAll}, null);
    SSLSocket socket =
        (SSLSocket)
            tls.getSocketFactory().createSocket("127.0.0.1", server.endpoints().get(0).port());
    socket.setSoTimeout(10_000);
    socket.startHandshake();
    assertThat(socket.getApplicationProtocol()).isEmpty();
    return socket;
  }

  @Test
  void anHttp2PrefaceInsideTlsWithoutAlpnIsServedAsGrpc() throws Exception {
    try (SSLSocket socket = connect()) {
      OutputStream out = socket.getOutputStream();
      out.write(RawHttp2Socket.PREFACE);
      out.write(RawHttp2Socket.frame(RawHttp2Socket.SETTINGS, 0, 0, new byte[0]));
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      in.readUnsignedByte();
      in.readUnsignedShort();
      // The server's first frame is its SETTINGS.
      assertThat(in.readUnsignedByte()).isEqualTo(RawHttp2Socket.SETTINGS);
    }
  }

  @Test
  void aClientThatSendsOneByteInsideTlsAndStallsIsClosedAtTheHandshakeDeadline() throws Exception {
    try (SSLSocket socket = connect()) {
      socket.getOutputStream().write('P');
      socket.getOutputStream().flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      int frames = 0;
      // The server's SETTINGS and window, then the close.
      while (in.read(new byte[4096]) >= 0 && frames < 100) {
        frames++;
      }
      assertThat(frames).isLessThan(100);
    } catch (javax.net.ssl.SSLException closedByPeer) {
      // A close without close_notify is a close too.
      assertThat(closedByPeer).isNotNull();
    }
  }
}
