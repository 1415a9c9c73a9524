package dev.tether.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tether.ConnectionLostException;
import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.testkit.EchoServer.Ending;
import dev.tether.testkit.EchoServer.Peer;
import io.netty.channel.epoll.Epoll;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fault proxy over real loopback sockets, on both socket implementations: between a java.net
 * client and a Netty echo server, and between a Tether client and a Tether server.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(SocketIo.class)
class FaultProxyTest {
  /** How long anything that should happen may take; a bound, not a wait. */
  private static final Duration PATIENCE = Duration.ofSeconds(5);

  /** How long something that must not happen is watched for. */
  private static final Duration WATCH = Duration.ofMillis(300);

  private final SocketIo flavor;
  private final List<AutoCloseable> resources = new ArrayList<>();

  /** The Tether echo service's operation "hold" waits for this; it opens by the test's end. */
  private final CountDownLatch released = new CountDownLatch(1);

  private final AtomicInteger holdsDone = new AtomicInteger();
  private EchoServer server;
  private FaultProxy proxy;

  FaultProxyTest(SocketIo flavor) {
    this.flavor = flavor;
  }

  @BeforeEach
  void start() {
    assumeTrue(flavor != SocketIo.EPOLL || Epoll.isAvailable(), "no native epoll here");
    closeLater(released::countDown);
    server = closeLater(EchoServer.start());
    proxy = closeLater(FaultProxy.start(server.address(), flavor));
  }

  @AfterEach
  void stop() throws Exception {
    Exception first = null;
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  // Pass

  @Test
  void passesBytesBothWays() throws IOException {
    Socket client = connect();
    send(client, "hello");
    assertThat(read(client, 5)).isEqualTo("hello");
    assertThat(onlyPeer().received()).asString(UTF_8).isEqualTo("hello");
  }

  @Test
  void relaysAMegabyteEachWayInOrder() throws Exception {
    byte[] sent = new byte[1 << 20];
    new Random(42).nextBytes(sent);
    Socket client = connect();
    CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> write(client, sent));
    assertThat(readBytes(client, sent.length)).isEqualTo(sent);
    writing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(proxy.bytesForwarded(Direction.CLIENT_TO_SERVER)).isEqualTo(sent.length);
    assertThat(proxy.bytesForwarded(Direction.SERVER_TO_CLIENT)).isEqualTo(sent.length);
  }

  @Test
  void latencyRelaysMoreThanItHoldsWithoutStalling() throws Exception {
    byte[] sent = new byte[4 * Flow.MAX_HELD_BYTES];
    new Random(7).nextBytes(sent);
    proxy.latency(Duration.ofMillis(10));
    Socket client = connect();
    CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> write(client, sent));
    assertThat(readBytes(client, sent.length)).isEqualTo(sent);
    writing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void startByHostAndPortWorksLikeStartByAddress() throws IOException {
    proxy = closeLater(FaultProxy.start("127.0.0.1", server.address().getPort()));
    roundTrip(connect(), "hi");
  }

  @Test
  void endpointAddressAndPortNameTheListeningSocket() {
    assertThat(proxy.endpoint()).isEqualTo("tcp -h 127.0.0.1 -p " + proxy.port());
    assertThat(proxy.address()).isEqualTo(new InetSocketAddress("127.0.0.1", proxy.port()));
    assertThat(proxy.port()).isPositive();
    assertThat(proxy.target()).isEqualTo(server.address());
  }

  @Test
  void countsAcceptedAndOpenConnectionsAndForwardedBytes() throws IOException {
    Socket first = connect();
    Socket second = connect();
    send(first, "abc");
    send(second, "defg");
    assertThat(read(first, 3)).isEqualTo("abc");
    assertThat(read(second, 4)).isEqualTo("defg");

    assertThat(proxy.acceptedConnections()).isEqualTo(2);
    assertThat(proxy.openConnections()).isEqualTo(2);
    assertThat(proxy.bytesForwarded(Direction.CLIENT_TO_SERVER)).isEqualTo(7);
    assertThat(proxy.bytesForwarded(Direction.SERVER_TO_CLIENT)).isEqualTo(7);

    first.close();
    eventually().until(proxy::openConnections, n -> n == 1);
    assertThat(proxy.acceptedConnections()).isEqualTo(2);
  }

  @Test
  void theServerClosingReachesTheClientAsEndOfStream() throws IOException {
    Socket client = connect();
    roundTrip(client, "hi");
    onlyPeer().sendAndClose("bye".getBytes(UTF_8));
    assertThat(readToEnd(client)).isEqualTo(new Received("bye", Ending.EOF));
    eventually().until(proxy::openConnections, n -> n == 0);
  }

  @Test
  void theServerResettingReachesTheClientAsAReset() throws IOException {
    Socket client = connect();
    roundTrip(client, "hi");
    onlyPeer().reset();
    assertThat(readToEnd(client)).isEqualTo(new Received("", Ending.RESET));
  }

  @Test
  void anUnreachableTargetResetsTheClient() throws IOException {
    proxy.retarget(closedPort());
    assertNextConnectionIsReset();
    eventually().until(proxy::openConnections, n -> n == 0);
  }

  // Latency

  @Test
  void latencyDelaysBothDirectionsOfARoundTrip() throws IOException {
    Socket client = connect();
    roundTrip(client, "warm");
    Duration latency = Duration.ofMillis(100);
    proxy.latency(latency);
    long startNanos = System.nanoTime();
    roundTrip(client, "slow");
    assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
        .isGreaterThanOrEqualTo(latency.multipliedBy(2));
  }

  @Test
  void latencyKeepsTheOrderOfChunks() throws IOException {
    proxy.latency(Duration.ofMillis(20));
    Socket client = connect();
    StringBuilder sent = new StringBuilder();
    for (int i = 0; i < 50; i++) {
      String chunk = i + ",";
      send(client, chunk);
      sent.append(chunk);
    }
    assertThat(read(client, sent.length())).isEqualTo(sent.toString());
  }

  @Test
  void droppingTheLatencyNeverReordersBytes() throws IOException {
    Socket client = connect();
    proxy.latency(Duration.ofMillis(200));
    send(client, "first,");
    proxy.pass();
    send(client, "second");
    assertThat(read(client, 12)).isEqualTo("first,second");
  }

  @Test
  void latencyDelaysTheEndOfStreamBehindTheLastBytes() throws IOException {
    Socket client = connect();
    roundTrip(client, "hi");
    proxy.latency(Duration.ofMillis(100));
    onlyPeer().sendAndClose("bye".getBytes(UTF_8));
    assertThat(readToEnd(client)).isEqualTo(new Received("bye", Ending.EOF));
  }

  // Freeze

  @Test
  void freezeForwardsNothingAndClosesNothingUntilUnfreeze() throws IOException {
    Socket client = connect();
    roundTrip(client, "before");
    proxy.freeze();
    send(client, "during");
    eventually()
        .during(WATCH)
        .until(
            () ->
                Arrays.equals(onlyPeer().received(), bytes("before"))
                    && !onlyPeer().ending().isDone());
    assertThat(proxy.openConnections()).isEqualTo(1);

    proxy.unfreeze();
    assertThat(read(client, 6)).isEqualTo("during");
  }

  @Test
  void freezeStallsASenderOnceTheSocketBuffersAreFull() throws Exception {
    byte[] sent = new byte[16 << 20];
    Socket client = connect();
    proxy.freeze();
    CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> write(client, sent));
    eventually().during(WATCH).until(() -> !writing.isDone());
    assertThat(onlyPeer().received()).isEmpty();

    proxy.unfreeze();
    assertThat(readBytes(client, sent.length)).isEqualTo(sent);
    writing.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void freezeHoldsConnectionsAcceptedWhileFrozen() throws IOException {
    proxy.freeze();
    Socket client = connect();
    send(client, "held");
    eventually().until(() -> server.peers().size() == 1);
    eventually().during(WATCH).until(() -> onlyPeer().received().length == 0);

    proxy.unfreeze();
    assertThat(read(client, 4)).isEqualTo("held");
  }

  // Reset and close

  @Test
  void resetAllResetsTheClientAndTheServer() throws IOException {
    Socket client = connect();
    roundTrip(client, "hi");
    proxy.resetAll();
    assertThat(proxy.openConnections()).isZero();
    assertThatThrownBy(() -> client.getInputStream().read())
        .isInstanceOf(SocketException.class)
        .hasMessageContaining("Connection reset");
    assertThat(onlyPeer().ending()).succeedsWithin(PATIENCE).isEqualTo(Ending.RESET);
  }

  @Test
  void resetAllAlsoResetsAFrozenConnection() throws IOException {
    Socket client = connect();
    roundTrip(client, "hi");
    proxy.freeze();
    send(client, "never");
    proxy.resetAll();
    assertThat(readToEnd(client)).isEqualTo(new Received("", Ending.RESET));
    assertThat(onlyPeer().ending()).succeedsWithin(PATIENCE).isEqualTo(Ending.RESET);
    assertThat(onlyPeer().received()).asString(UTF_8).isEqualTo("hi");
  }

  @Test
  void closeAllEndsTheClientAndTheServerWithEndOfStream() throws IOException {
    Socket client = connect();
    roundTrip(client, "hi");
    proxy.closeAll();
    assertThat(readToEnd(client)).isEqualTo(new Received("", Ending.EOF));
    assertThat(onlyPeer().ending()).succeedsWithin(PATIENCE).isEqualTo(Ending.EOF);
    assertThat(proxy.openConnections()).isZero();
  }

  // Cut

  @Test
  void cutAfterForwardsExactlyThatManyBytesToTheServerThenResets() throws IOException {
    proxy.cutAfter(10, Direction.CLIENT_TO_SERVER);
    Socket client = connect();
    send(client, "0123456789abcdefghijklmno");
    assertThat(onlyPeerEventually().ending()).succeedsWithin(PATIENCE).isEqualTo(Ending.RESET);
    assertThat(onlyPeer().received()).asString(UTF_8).isEqualTo("0123456789");
    assertThat(readToEnd(client).ending()).isEqualTo(Ending.RESET);
    assertThat(proxy.bytesForwarded(Direction.CLIENT_TO_SERVER)).isEqualTo(10);
  }

  @Test
  void cutAfterForwardsExactlyThatManyBytesOfTheAnswerThenResets() throws IOException {
    proxy.cutAfter(5, Direction.SERVER_TO_CLIENT);
    Socket client = connect();
    send(client, "0123456789");
    assertThat(readToEnd(client)).isEqualTo(new Received("01234", Ending.RESET));
    assertThat(onlyPeer().ending()).succeedsWithin(PATIENCE).isEqualTo(Ending.RESET);
    assertThat(proxy.bytesForwarded(Direction.SERVER_TO_CLIENT)).isEqualTo(5);
  }

  @Test
  void cutAfterCountsFromNowOnConnectionsAlreadyOpen() throws IOException {
    Socket client = connect();
    roundTrip(client, "before");
    proxy.cutAfter(3, Direction.CLIENT_TO_SERVER);
    send(client, "abcdef");
    assertThat(onlyPeer().ending()).succeedsWithin(PATIENCE).isEqualTo(Ending.RESET);
    assertThat(onlyPeer().received()).asString(UTF_8).isEqualTo("beforeabc");
  }

  @Test
  void aConnectionThatStaysWithinTheCutIsNotCut() throws IOException {
    proxy.cutAfter(5, Direction.CLIENT_TO_SERVER);
    Socket client = connect();
    roundTrip(client, "12345");
    assertThat(proxy.openConnections()).isEqualTo(1);
    assertThat(onlyPeer().ending()).isNotDone();
  }

  @Test
  void passDisarmsTheCut() throws IOException {
    proxy.cutAfter(3, Direction.CLIENT_TO_SERVER);
    proxy.pass();
    Socket client = connect();
    roundTrip(client, "longer than three");
    assertThat(proxy.openConnections()).isEqualTo(1);
  }

  // Refusing, stopping, retargeting

  @Test
  void stopRefusesConnectsAndRestartAcceptsThemOnTheSamePort() throws IOException {
    int port = proxy.port();
    proxy.stop();
    assertThatThrownBy(this::connect)
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("Connection refused");

    proxy.restart();
    assertThat(proxy.port()).isEqualTo(port);
    roundTrip(connect(), "back");
  }

  @Test
  void restartFailsWhenAnotherSocketTookThePort() throws IOException {
    proxy.stop();
    try (ServerSocket squatter = new ServerSocket(proxy.port(), 1, proxy.address().getAddress())) {
      assertThatThrownBy(proxy::restart)
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining(":" + squatter.getLocalPort());
    }
    proxy.restart();
    roundTrip(connect(), "mine again");
  }

  @Test
  void stopLeavesOpenConnectionsRelaying() throws IOException {
    Socket client = connect();
    proxy.stop();
    roundTrip(client, "still here");
    proxy.stop();
    proxy.restart();
    proxy.restart();
    roundTrip(client, "and here");
  }

  @Test
  void refuseNewResetsNewConnectionsButNotOpenOnes() throws IOException {
    Socket open = connect();
    proxy.refuseNew(true);
    assertNextConnectionIsReset();
    roundTrip(open, "fine");

    proxy.refuseNew(false);
    roundTrip(connect(), "welcome again");
    assertThat(proxy.acceptedConnections()).isEqualTo(3);
    assertThat(server.peers()).hasSize(2);
  }

  @Test
  void retargetSendsNewConnectionsToTheNewTargetOnly() throws IOException {
    Socket old = connect();
    EchoServer other = closeLater(EchoServer.start());
    proxy.retarget(other.address());
    assertThat(proxy.target()).isEqualTo(other.address());

    roundTrip(connect(), "new");
    roundTrip(old, "old");
    assertThat(other.peers())
        .singleElement()
        .satisfies(peer -> assertThat(peer.received()).asString(UTF_8).isEqualTo("new"));
    assertThat(onlyPeer().received()).asString(UTF_8).isEqualTo("old");
  }

  // Closing the proxy

  @Test
  void closeEndsEveryConnectionAndTheThreadAndKeepsTheCounts() throws IOException {
    Socket client = connect();
    roundTrip(client, "hi");
    proxy.close();

    assertThat(readToEnd(client).ending()).isEqualTo(Ending.EOF);
    eventually()
        .until(
            () ->
                Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().startsWith("tether-fault-proxy")));
    assertThat(proxy.openConnections()).isZero();
    assertThat(proxy.bytesForwarded(Direction.CLIENT_TO_SERVER)).isEqualTo(2);
    assertThatThrownBy(proxy::freeze).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(proxy::restart).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(this::connect).isInstanceOf(ConnectException.class);
    proxy.close();
  }

  // With Tether on both ends

  @Test
  void tetherCallsPassThrough() {
    TetherServer tetherServer = echoTetherServer(new AtomicInteger());
    Proxy echo = tetherClientThrough(tetherServer);
    assertThat(echo.invoke("echo", bytes("hi"))).asString(UTF_8).isEqualTo("hi");
  }

  @Test
  void latencySlowsATetherRoundTrip() {
    Proxy echo = tetherClientThrough(echoTetherServer(new AtomicInteger()));
    echo.invoke("echo", bytes("warm"));
    Duration latency = Duration.ofMillis(100);
    proxy.latency(latency);
    long startNanos = System.nanoTime();
    echo.invoke("echo", bytes("slow"));
    assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
        .isGreaterThanOrEqualTo(latency.multipliedBy(2));
  }

  @Test
  void freezeHoldsATetherCallUntilUnfreeze() throws Exception {
    Proxy echo = tetherClientThrough(echoTetherServer(new AtomicInteger()));
    echo.invoke("echo", bytes("warm"));
    proxy.freeze();
    CompletableFuture<byte[]> call = echo.invokeAsync("echo", bytes("held"));
    eventually().during(WATCH).until(() -> !call.isDone());

    proxy.unfreeze();
    assertThat(call)
        .succeedsWithin(PATIENCE)
        .satisfies(answer -> assertThat(answer).asString(UTF_8).isEqualTo("held"));
  }

  @Test
  void resetAllLosesAnInFlightTetherCallAndTheNextCallReconnects() {
    AtomicInteger runs = new AtomicInteger();
    Proxy echo = tetherClientThrough(echoTetherServer(runs));
    CompletableFuture<byte[]> call = echo.invokeAsync("hold", bytes("lost"));
    eventually().until(runs::get, n -> n == 1);
    proxy.resetAll();
    assertThat(call)
        .failsWithin(PATIENCE)
        .withThrowableThat()
        .havingCause()
        .isInstanceOfSatisfying(
            ConnectionLostException.class, FaultProxyTest::assertMayHaveExecuted);

    assertThat(echo.invoke("echo", bytes("again"))).asString(UTF_8).isEqualTo("again");
    assertThat(proxy.acceptedConnections()).isEqualTo(2);
    assertThat(runs).hasValue(2);
    released.countDown();
    eventually().until(holdsDone::get, n -> n == 1);
  }

  @Test
  void aCutTetherRequestNeverRunsOnTheServer() {
    AtomicInteger runs = new AtomicInteger();
    Proxy echo = tetherClientThrough(echoTetherServer(runs));
    echo.ping();
    long handshakeBytes = proxy.bytesForwarded(Direction.CLIENT_TO_SERVER);
    proxy.cutAfter(8, Direction.CLIENT_TO_SERVER);
    // The client redials a lost connection at once: that connection's preface must not count here.
    proxy.refuseNew(true);
    // The client wrote the whole request, so it must assume the server may have run it; it did not.
    assertThatThrownBy(() -> echo.invoke("echo", new byte[1000]))
        .isInstanceOfSatisfying(
            ConnectionLostException.class, FaultProxyTest::assertMayHaveExecuted);
    assertThat(proxy.bytesForwarded(Direction.CLIENT_TO_SERVER)).isEqualTo(handshakeBytes + 8);
    assertThat(runs).hasValue(0);
  }

  @Test
  void retargetFollowsATetherServerRestartedOnAnotherPort() {
    TetherServer first = echoTetherServer(new AtomicInteger());
    Proxy echo = tetherClientThrough(first);
    assertThat(echo.invoke("echo", bytes("one"))).asString(UTF_8).isEqualTo("one");

    TetherServer second = echoTetherServer(new AtomicInteger());
    proxy.retarget(tetherAddress(second));
    resources.remove(first); // TetherServer.close() may run only once
    first.close();
    // Idempotent: the call may meet the old connection before the client has seen it close.
    assertThat(echo.invoke("echo", bytes("two"), Idempotency.IDEMPOTENT))
        .asString(UTF_8)
        .isEqualTo("two");
    assertThat(second.connectionCount()).isEqualTo(1);
  }

  // Helpers

  private record Received(String text, Ending ending) {}

  private <T extends AutoCloseable> T closeLater(T resource) {
    resources.add(resource);
    return resource;
  }

  /** Awaitility, polling often (its default waits 100 ms before the first look). */
  private static ConditionFactory eventually() {
    return await().atMost(PATIENCE).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5));
  }

  /** Connects and expects a reset: of the connect itself, if the proxy is quick, else of a read. */
  private void assertNextConnectionIsReset() throws IOException {
    try (Socket socket = new Socket()) {
      socket.setSoTimeout((int) PATIENCE.toMillis());
      try {
        socket.connect(proxy.address(), (int) PATIENCE.toMillis());
      } catch (SocketException resetBeforeConnectReturned) {
        assertThat(resetBeforeConnectReturned).hasMessageContaining("Connection reset");
        return;
      }
      assertThat(readToEnd(socket)).isEqualTo(new Received("", Ending.RESET));
    }
  }

  /** Connects to the proxy and waits until the proxy has accepted the connection. */
  private Socket connect() throws IOException {
    int acceptedBefore = proxy.acceptedConnections();
    Socket socket = new Socket();
    try {
      socket.setSoTimeout((int) PATIENCE.toMillis());
      socket.setTcpNoDelay(true);
      socket.connect(proxy.address(), (int) PATIENCE.toMillis());
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    eventually().until(proxy::acceptedConnections, n -> n > acceptedBefore);
    return closeLater(socket);
  }

  private Peer onlyPeer() {
    assertThat(server.peers()).hasSize(1);
    return server.peers().get(0);
  }

  private Peer onlyPeerEventually() {
    eventually().until(() -> !server.peers().isEmpty());
    return onlyPeer();
  }

  private static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(bytes(text));
    socket.getOutputStream().flush();
  }

  private static void write(Socket socket, byte[] data) {
    try {
      socket.getOutputStream().write(data);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String read(Socket socket, int length) throws IOException {
    return new String(readBytes(socket, length), UTF_8);
  }

  private static byte[] readBytes(Socket socket, int length) throws IOException {
    byte[] data = socket.getInputStream().readNBytes(length);
    assertThat(data).as("bytes read before the end of stream").hasSize(length);
    return data;
  }

  private static void roundTrip(Socket socket, String text) throws IOException {
    send(socket, text);
    assertThat(read(socket, text.length())).isEqualTo(text);
  }

  /** Reads until end of stream or reset; a read timeout fails the test. */
  private static Received readToEnd(Socket socket) throws IOException {
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[4096];
    try {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        received.write(buffer, 0, n);
      }
      return new Received(received.toString(UTF_8), Ending.EOF);
    } catch (SocketException e) {
      assertThat(e).hasMessageContaining("Connection reset");
      return new Received(received.toString(UTF_8), Ending.RESET);
    }
  }

  private static InetSocketAddress closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return new InetSocketAddress("127.0.0.1", socket.getLocalPort());
    }
  }

  private static void assertMayHaveExecuted(ConnectionLostException lost) {
    assertThat(lost.mayHaveExecuted()).as("mayHaveExecuted").isTrue();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }

  private TetherServer echoTetherServer(AtomicInteger runs) {
    return closeLater(
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service(
                "echo",
                (op, payload, ctx) -> {
                  runs.incrementAndGet();
                  if (op.equals("hold")) {
                    released.await();
                    holdsDone.incrementAndGet();
                  }
                  return payload;
                })
            .build()
            .start());
  }

  private Proxy tetherClientThrough(TetherServer tetherServer) {
    proxy.retarget(tetherAddress(tetherServer));
    Tether tether = closeLater(Tether.create());
    return tether.proxy("echo:" + proxy.endpoint());
  }

  private static InetSocketAddress tetherAddress(TetherServer tetherServer) {
    return new InetSocketAddress("127.0.0.1", tetherServer.endpoints().get(0).port());
  }
}
