package dev.tether.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hostile client of the status page over raw loopback sockets: one that pipelines requests and
 * never reads the answers, Host headers a browser under DNS rebinding (or a confused proxy) could
 * send, and requests trickled in the ways a slowloris client does.
 */
class AdminAttackTest {
  private ObservedEcho page;

  @AfterEach
  void stop() {
    if (page != null) {
      page.close();
    }
  }

  private String host() {
    return "127.0.0.1:" + page.admin.address().getPort();
  }

  private String statusOf(String rawHostHeaders) throws IOException {
    try (RawHttp c = new RawHttp(page.admin)) {
      return c.send("GET /status.json HTTP/1.1\r\n" + rawHostHeaders + "\r\n").read().statusLine();
    }
  }

  /**
   * Eight clients each pipeline a request for the page (~40 bytes; the answer ~11 KB) every 40 ms
   * and never read. Each answer the server cannot send is held as a copy in Netty's direct memory,
   * which the RPC transport allocates from too; only a read that happens to hold more than 16
   * requests cuts a client off, and at this pace none does. The page's bounds should stop the
   * growth (stop reading an unwritable connection, so the clients' writes stall, or cut it off)
   * well below 12 MB after 2400 requests (about 12 s); measured on 2026-12-05: 55 MB after 30 s,
   * growing linearly, without the bound; 4 MB after 2400 requests with it.
   */
  @Test
  void clientsThatPipelineAndNeverReadCannotGrowTheServersDirectMemoryWithoutBound()
      throws Exception {
    page = new ObservedEcho(UnaryOperator.identity());
    byte[] request = RawHttp.get("/index.html", host()).getBytes(StandardCharsets.US_ASCII);
    long limit = 12L << 20;
    long baseline = PlatformDependent.usedDirectMemory();
    assertThat(baseline).as("Netty counts its direct memory here").isNotNegative();
    List<SocketChannel> clients = new ArrayList<>();
    AtomicInteger cutOff = new AtomicInteger();
    AtomicLong requests = new AtomicLong();
    AtomicLong lastProgress = new AtomicLong(System.nanoTime());
    ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
    try {
      for (int i = 0; i < 8; i++) {
        SocketChannel c = SocketChannel.open();
        c.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
        c.connect(new InetSocketAddress("127.0.0.1", page.admin.address().getPort()));
        c.configureBlocking(false);
        clients.add(c);
      }
      writer.scheduleWithFixedDelay(
          () -> {
            for (SocketChannel c : clients) {
              if (!c.isOpen()) {
                continue;
              }
              try {
                ByteBuffer b = ByteBuffer.wrap(request);
                c.write(b);
                if (!b.hasRemaining()) {
                  requests.incrementAndGet();
                  lastProgress.set(System.nanoTime());
                }
              } catch (IOException closedByServer) {
                cutOff.incrementAndGet();
                try {
                  c.close();
                } catch (IOException ignored) {
                  // already gone
                }
              }
            }
          },
          0,
          40,
          TimeUnit.MILLISECONDS);

      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  cutOff.get() == clients.size()
                      || System.nanoTime() - lastProgress.get() > TimeUnit.SECONDS.toNanos(3)
                      || PlatformDependent.usedDirectMemory() - baseline > limit
                      || requests.get() > 2_400);
    } finally {
      writer.shutdownNow();
      long grown = PlatformDependent.usedDirectMemory() - baseline;
      for (SocketChannel c : clients) {
        c.close();
      }
      assertThat(grown)
          .as(
              "direct memory grown by %d MB after %d requests from clients that read nothing"
                  + " (%d of %d cut off)",
              grown >> 20, requests.get(), cutOff.get(), clients.size())
          .isLessThan(limit);
    }
  }

  @Test
  void hostHeaderNamesAreServedOnlyForTheirOwnAddresses() throws IOException {
    page = new ObservedEcho(UnaryOperator.identity());
    assertThat(statusOf("Host: LOCALHOST.:" + page.admin.address().getPort() + "\r\n"))
        .isEqualTo("HTTP/1.1 200 OK");
    assertThat(statusOf("Host: Page.Localhost\r\n")).isEqualTo("HTTP/1.1 200 OK");
    assertThat(statusOf("Host: [::1]\r\n")).isEqualTo("HTTP/1.1 200 OK");
    assertThat(statusOf("Host: evil.localhost.attacker.com\r\n")).startsWith("HTTP/1.1 421");
    assertThat(statusOf("Host: localhost.attacker.com\r\n")).startsWith("HTTP/1.1 421");
    assertThat(statusOf("Host: 127.0.0.1.nip.io\r\n")).startsWith("HTTP/1.1 421");
    assertThat(statusOf("Host: 2130706433\r\n")).startsWith("HTTP/1.1 421");
    assertThat(statusOf("Host: \r\n")).startsWith("HTTP/1.1 421");
  }

  @Test
  void absoluteFormTargetNamingAnotherHostGetsNoStatus() throws IOException {
    page = new ObservedEcho(UnaryOperator.identity());
    try (RawHttp c = new RawHttp(page.admin)) {
      RawHttp.Response r =
          c.send(
                  "GET http://rebind.attacker.example/status.json HTTP/1.1\r\nHost: localhost\r\n\r\n")
              .read();
      assertThat(r.body()).doesNotContain("clients");
    }
  }

  /** A bracketed Host is served as an IPv6 literal whatever is inside the brackets. */
  @Test
  void bracketedHostThatIsNoIpv6LiteralIsRefused() throws IOException {
    page = new ObservedEcho(UnaryOperator.identity());

    assertThat(statusOf("Host: [rebind.attacker.example]\r\n")).startsWith("HTTP/1.1 421");
  }

  /** RFC 9112 3.2: a request with more than one Host field is answered 400. */
  @Test
  void requestWithTwoHostHeadersIsRefused() throws IOException {
    page = new ObservedEcho(UnaryOperator.identity());

    assertThat(statusOf("Host: localhost\r\nHost: rebind.attacker.example\r\n"))
        .doesNotStartWith("HTTP/1.1 200");
  }

  @Test
  void requestsTrickledInEverySlowlorisShapeAreAnswered408WithinTheDeadline() throws Exception {
    page =
        new ObservedEcho(
            UnaryOperator.identity(),
            b -> b.headerDeadline(Duration.ofMillis(500)).idleTimeout(Duration.ofMinutes(1)));
    String[] shapes = {
      "GET /status.json HTTP/1.1", // a request line never ended
      "\r\n\r\n\r\n", // only the blank lines a codec skips before a request
      "GET /status.json HTTP/1.1\r\nHost: " + host() + "\r\nContent-Length: 100\r\n\r\nab",
      "GET /status.json HTTP/1.1\r\nHost: "
          + host()
          + "\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nab", // a chunked body never finished
    };
    java.util.List<String> failed = new java.util.ArrayList<>();
    for (String shape : shapes) {
      try (RawHttp slow = new RawHttp(page.admin)) {
        slow.send(shape);
        long start = System.nanoTime();
        String last;
        do {
          last = slow.read().statusLine();
        } while (last.equals("HTTP/1.1 200 OK"));
        assertThat(last).as(shape).isEqualTo("HTTP/1.1 408 Request Timeout");
        assertThat(slow.closedByServer()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      } catch (java.net.SocketTimeoutException | AssertionError e) {
        failed.add(shape.replace("\r\n", "\\r\\n") + " -> " + e);
      }
    }
    assertThat(failed).isEmpty();
  }

  /**
   * The deadline starts at a request's first byte, but only when that byte arrives in a read of its
   * own: bytes of the next request that came with the end of the previous one start none.
   */
  @Test
  void secondPipelinedRequestLeftHalfSentIsAnswered408WithinTheDeadline() throws Exception {
    page =
        new ObservedEcho(
            UnaryOperator.identity(),
            b -> b.headerDeadline(Duration.ofMillis(500)).idleTimeout(Duration.ofMinutes(1)));
    try (RawHttp slow = new RawHttp(page.admin)) {
      slow.send(RawHttp.get("/status.json", host()) + "GET /metr");
      assertThat(slow.read().statusLine()).isEqualTo("HTTP/1.1 200 OK");

      // RawHttp's read timeout is 10 s: twenty deadlines.
      assertThat(slow.read().statusLine()).isEqualTo("HTTP/1.1 408 Request Timeout");
    }
  }

  @Test
  void http10KeepAliveClientGetsItsAnswersOnOneConnection() throws IOException {
    page = new ObservedEcho(UnaryOperator.identity());
    try (RawHttp c = new RawHttp(page.admin)) {
      String req = "GET /status.json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
      assertThat(c.send(req).read().statusLine()).isEqualTo("HTTP/1.1 200 OK");
      assertThat(c.send(req).read().statusLine()).isEqualTo("HTTP/1.1 200 OK");
      assertThat(c.send("GET /status.json HTTP/1.0\r\n\r\n").read().statusLine())
          .isEqualTo("HTTP/1.1 200 OK");
      assertThat(c.closedByServer()).isTrue();
    }
  }

  @Test
  void malformedRequestMidPipelineEndsItAfterTheEarlierAnswersInOrder() throws IOException {
    page = new ObservedEcho(UnaryOperator.identity());
    try (RawHttp c = new RawHttp(page.admin)) {
      c.send(
          RawHttp.get("/status.json", host())
              + RawHttp.get("/nope", host())
              + "GET /x HTTP/1.1\r\nBad Header Without Colon\r\n\r\n"
              + RawHttp.get("/status.json", host()));
      assertThat(c.read().statusLine()).isEqualTo("HTTP/1.1 200 OK");
      assertThat(c.read().statusLine()).isEqualTo("HTTP/1.1 404 Not Found");
      assertThat(c.read().statusLine()).isEqualTo("HTTP/1.1 400 Bad Request");
      assertThat(c.closedByServer()).isTrue();
    }
  }
}
