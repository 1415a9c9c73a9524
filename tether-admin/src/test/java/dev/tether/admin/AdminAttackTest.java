package dev.tether.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
   * Each request is ~40 bytes and its answer (the page) ~11 KB. A client that never reads must be
   * stopped (the server stops reading, or cuts it off) before the server holds more than its socket
   * buffers (at most 4 MB: tcp_wmem's maximum on this machine) and one water mark (256 KB) of
   * answers; here it is allowed 4.5 MB.
   */
  @Test
  void clientThatPipelinesAndNeverReadsCannotMakeTheServerBufferUnboundedAnswers()
      throws Exception {
    page = new ObservedEcho(UnaryOperator.identity());
    int pageBytes = page.get("index.html").body().getBytes(StandardCharsets.UTF_8).length;
    long allowedBufferedBytes = (4L << 20) + (512L << 10);
    long enoughRequests = allowedBufferedBytes / pageBytes + 1;
    byte[] batch = (RawHttp.get("/index.html", host())).getBytes(StandardCharsets.US_ASCII);

    SocketChannel channel = SocketChannel.open();
    channel.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
    channel.connect(new InetSocketAddress("127.0.0.1", page.admin.address().getPort()));
    channel.configureBlocking(false);
    AtomicLong requestsTaken = new AtomicLong();
    AtomicLong lastProgress = new AtomicLong(System.nanoTime());
    AtomicBoolean cutOff = new AtomicBoolean();
    ByteBuffer pending = ByteBuffer.allocate(0);
    ByteBuffer[] current = {pending};
    ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
    try {
      // One request every 10 ms, so the server reads them one at a time (never 16 at once).
      writer.scheduleWithFixedDelay(
          () -> {
            try {
              if (!current[0].hasRemaining()) {
                current[0] = ByteBuffer.wrap(batch);
              }
              int before = current[0].remaining();
              channel.write(current[0]);
              int written = before - current[0].remaining();
              if (written > 0) {
                lastProgress.set(System.nanoTime());
              }
              if (!current[0].hasRemaining()) {
                requestsTaken.incrementAndGet();
              }
            } catch (IOException closed) {
              cutOff.set(true);
              throw new IllegalStateException(closed);
            }
          },
          0,
          10,
          TimeUnit.MILLISECONDS);

      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  cutOff.get()
                      || requestsTaken.get() >= enoughRequests
                      || System.nanoTime() - lastProgress.get() > TimeUnit.SECONDS.toNanos(3));
    } finally {
      writer.shutdownNow();
      channel.close();
    }

    long bufferedBytes = requestsTaken.get() * pageBytes;
    System.out.printf(
        "ATTACK pipelined-no-read: requests=%d cutOff=%s page=%d%n",
        requestsTaken.get(), cutOff.get(), pageBytes);
    assertThat(bufferedBytes)
        .as(
            "%d requests read from a client that read no answer (cut off: %s): ~%d MB of answers"
                + " held for it",
            requestsTaken.get(), cutOff.get(), bufferedBytes >> 20)
        .isLessThan(allowedBufferedBytes);
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
