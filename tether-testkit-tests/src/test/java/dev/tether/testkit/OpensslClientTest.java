package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tether.ClientAuth;
import dev.tether.TetherServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Tether server with the most foreign client at hand: {@code openssl s_client}, checking the
 * server's certificate and name with OpenSSL's rules and then speaking Tether's handshake by hand.
 * Skipped, saying so, where openssl is not installed.
 */
class OpensslClientTest {
  /**
   * The client's preface ("TETH", version 1.0) and a HELLO frame, as docs/protocol.md lays them
   * out.
   */
  private static final byte[] PREFACE_AND_HELLO = helloBytes();

  private static TestCertificates certificates;
  private TetherServer server;

  @BeforeAll
  static void requireOpenssl() {
    assumeTrue(
        opensslRuns(), "openssl is not installed (or does not run): skipping the s_client tests");
    certificates = TestCertificates.create();
  }

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("ssl -h 127.0.0.1 -p 0")
            .tls(certificates.serverConfig(ClientAuth.REQUIRE))
            .service("echo", (op, payload, ctx) -> payload)
            .build()
            .start();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static boolean opensslRuns() {
    try {
      Process p = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static byte[] helloBytes() {
    byte[] id = "openssl".getBytes(StandardCharsets.UTF_8);
    // HELLO: length u32 | type 1 | flags 0 | requestId 0 | string clientId | u32 maxFrameSize
    ByteBuffer b = ByteBuffer.allocate(8 + 4 + 6 + 1 + id.length + 4);
    b.put("TETH".getBytes(StandardCharsets.US_ASCII))
        .put((byte) 1)
        .put((byte) 0)
        .putShort((short) 0);
    b.putInt(6 + 1 + id.length + 4).put((byte) 1).put((byte) 0).putInt(0);
    b.put((byte) id.length).put(id).putInt(1 << 20);
    return b.array();
  }

  /**
   * Runs s_client against the server with {@code options}, sends the Tether handshake, and returns
   * what the server answered (up to {@code wanted} bytes, or all until the connection ended).
   */
  private byte[] sClient(int wanted, String... options) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                "openssl",
                "s_client",
                "-quiet",
                "-verify_return_error",
                "-connect",
                "127.0.0.1:" + server.endpoints().get(0).port(),
                "-CAfile",
                certificates.caCertificate().toString()));
    command.addAll(List.of(options));
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      CompletableFuture<byte[]> answer =
          CompletableFuture.supplyAsync(() -> readUpTo(p.getInputStream(), wanted));
      try (OutputStream in = p.getOutputStream()) {
        in.write(PREFACE_AND_HELLO);
        in.flush();
      } catch (IOException refusedEarly) {
        // s_client gave up before reading stdin: the handshake failed, and the answer says so.
      }
      return answer.get(20, TimeUnit.SECONDS);
    } finally {
      p.destroyForcibly();
    }
  }

  private static byte[] readUpTo(InputStream in, int wanted) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[1024];
    try {
      int n;
      while (out.size() < wanted && (n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
      }
    } catch (IOException ended) {
      // The process went away: what arrived is the answer.
    }
    return out.toByteArray();
  }

  @Test
  void opensslWithATrustedClientCertificateOverTls13IsWelcomed() throws Exception {
    byte[] answer =
        sClient(
            12,
            "-tls1_3",
            "-verify_ip",
            "127.0.0.1",
            "-cert",
            certificates.client().certificateChain().toString(),
            "-key",
            certificates.client().privateKey().toString());

    assertThat(new String(answer, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("TETH");
    assertThat(answer[8 + 4])
        .as("the frame after the server's preface is WELCOME (type 2)")
        .isEqualTo((byte) 2);
  }

  @Test
  void opensslAcceptsTheServersNameByOpensslsOwnHostnameRules() throws Exception {
    byte[] answer =
        sClient(
            12,
            "-verify_hostname",
            "localhost",
            "-cert",
            certificates.client().certificateChain().toString(),
            "-key",
            certificates.client().privateKey().toString());

    assertThat(new String(answer, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("TETH");
  }

  @Test
  void opensslWithoutAClientCertificateIsRefusedAndHearsNothingOfTether() throws Exception {
    byte[] answer = sClient(Integer.MAX_VALUE, "-tls1_3");

    assertThat(new String(answer, StandardCharsets.US_ASCII)).doesNotContain("TETH");
  }

  @Test
  void opensslOfferingOnlyTls11IsRefused() throws Exception {
    byte[] answer =
        sClient(
            Integer.MAX_VALUE,
            "-tls1_1",
            "-cert",
            certificates.client().certificateChain().toString(),
            "-key",
            certificates.client().privateKey().toString());

    assertThat(new String(answer, StandardCharsets.US_ASCII)).doesNotContain("TETH");
  }
}
