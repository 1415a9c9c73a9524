package dev.tether.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.ConnectFailedException;
import dev.tether.Connection;
import dev.tether.ConnectionLostException;
import dev.tether.ConnectionState;
import dev.tether.InvocationTimeoutException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An {@link InProcessCluster} over real loopback sockets, with a service that answers the index of
 * the node it runs on: "whoami" at once, "slow" once the test releases it.
 */
class InProcessClusterTest {
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger slowCallsRunning = new AtomicInteger();
  private final List<Integer> configuredNodes = new CopyOnWriteArrayList<>();
  private final Tether tether = Tether.create();
  private InProcessCluster cluster;

  @AfterEach
  void closeEverything() {
    release.countDown();
    tether.close();
    if (cluster != null) {
      cluster.close();
    }
  }

  private InProcessCluster startCluster(int nodes) {
    cluster = InProcessCluster.start(nodes, this::configure);
    return cluster;
  }

  private void configure(int node, TetherServer.Builder server) {
    configuredNodes.add(node);
    server.service(
        "node",
        (operation, payload, context) -> {
          if (operation.equals("slow")) {
            slowCallsRunning.incrementAndGet();
            release.await(30, TimeUnit.SECONDS);
          }
          return Integer.toString(node).getBytes(StandardCharsets.UTF_8);
        });
  }

  private Proxy nodeProxy(int i) {
    return tether.proxy("node:" + cluster.endpoint(i));
  }

  private static String whoami(Proxy p) {
    return answer(p.invoke("whoami", new byte[0]));
  }

  private static String answer(byte[] payload) {
    return new String(payload, StandardCharsets.UTF_8);
  }

  private static Throwable failureOf(CompletableFuture<?> call) throws InterruptedException {
    try {
      call.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      throw new AssertionError("the call succeeded");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the call neither failed nor succeeded", e);
    }
  }

  @Test
  void everyNodeAnswersAtItsOwnEndpointAndTheProxyStringReachesThemAll() {
    startCluster(3);
    assertThat(cluster.size()).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      assertThat(whoami(nodeProxy(i))).isEqualTo(Integer.toString(i));
      assertThat(cluster.isUp(i)).isTrue();
    }
    assertThat(cluster.proxyString("node"))
        .isEqualTo("node:" + String.join(":", cluster.endpoints()));
    assertThat(whoami(tether.proxy(cluster.proxyString("node")))).isIn("0", "1", "2");
    assertThat(configuredNodes).containsExactly(0, 1, 2);
  }

  @Test
  void endpointsAreTheFaultProxiesNotTheServers() {
    startCluster(2);
    for (int i = 0; i < 2; i++) {
      assertThat(cluster.endpoint(i)).isEqualTo(cluster.faultProxy(i).endpoint());
      assertThat(cluster.faultProxy(i).target().getPort())
          .isEqualTo(cluster.server(i).endpoints().get(0).port());
    }
    assertThat(cluster.endpoints())
        .containsExactly(cluster.endpoint(0), cluster.endpoint(1))
        .doesNotHaveDuplicates();
  }

  @Test
  void uncachedConnectionsReachEveryNode() {
    startCluster(3);
    Proxy p = tether.proxy(cluster.proxyString("node")).withConnectionCached(false);
    Set<String> answered = new HashSet<>();
    // Random selection misses a given node 200 times in a row with odds of (2/3)^200.
    for (int call = 0; call < 200 && answered.size() < 3; call++) {
      answered.add(whoami(p));
    }
    assertThat(answered).containsExactlyInAnyOrder("0", "1", "2");
  }

  @Test
  void killedNodeFailsItsCallsWhileTheOthersAnswer() {
    startCluster(3);
    Proxy second = nodeProxy(1);
    assertThat(whoami(second)).isEqualTo("1");
    cluster.kill(1);
    assertThat(cluster.isUp(1)).isFalse();
    assertThatThrownBy(() -> whoami(second))
        .isInstanceOfAny(ConnectFailedException.class, ConnectionLostException.class);
    try (Tether newcomer = Tether.create()) {
      assertThatThrownBy(() -> whoami(newcomer.proxy("node:" + cluster.endpoint(1))))
          .isInstanceOf(ConnectFailedException.class);
    }
    assertThat(whoami(nodeProxy(0))).isEqualTo("0");
    assertThat(whoami(nodeProxy(2))).isEqualTo("2");
  }

  @Test
  void killLosesTheCallsInFlightAtOnce() throws Exception {
    startCluster(2);
    CompletableFuture<byte[]> call = nodeProxy(1).invokeAsync("slow", new byte[0]);
    await().atMost(PATIENCE).until(() -> slowCallsRunning.get() == 1);
    cluster.kill(1);
    assertThat(failureOf(call))
        .isInstanceOfSatisfying(
            ConnectionLostException.class, lost -> assertThat(lost.mayHaveExecuted()).isTrue());
    await().atMost(PATIENCE).until(() -> cluster.faultProxy(1).openConnections() == 0);
  }

  @Test
  void restartedNodeAnswersAgainAtTheSameEndpoint() {
    startCluster(3);
    String endpoint = cluster.endpoint(1);
    TetherServer first = cluster.server(1);
    int serverPort = first.endpoints().get(0).port();
    Proxy second = nodeProxy(1);
    assertThat(whoami(second)).isEqualTo("1");
    Connection beforeTheCrash = second.connection();
    cluster.kill(1);
    await()
        .atMost(PATIENCE)
        .until(() -> tether.connection(beforeTheCrash).state() == ConnectionState.CLOSED);
    cluster.restart(1);
    assertThat(cluster.isUp(1)).isTrue();
    assertThat(cluster.endpoint(1)).isEqualTo(endpoint);
    assertThat(cluster.server(1)).isNotSameAs(first);
    assertThat(cluster.server(1).endpoints().get(0).port()).isEqualTo(serverPort);
    assertThat(configuredNodes).containsExactly(0, 1, 2, 1);
    // The reconnect that met the dead port backs off: calls fail fast until its next attempt.
    await().atMost(PATIENCE).ignoreExceptions().until(() -> whoami(second).equals("1"));
    assertThat(whoami(tether.proxy("node:" + endpoint))).isEqualTo("1");
  }

  @Test
  void restartedNodeMovesToAnotherServerPortWhenItsOwnIsTaken() throws Exception {
    startCluster(2);
    String endpoint = cluster.endpoint(1);
    int serverPort = cluster.server(1).endpoints().get(0).port();
    cluster.kill(1);
    try (ServerSocket squatter =
        new ServerSocket(serverPort, 1, InetAddress.getByName("127.0.0.1"))) {
      cluster.restart(1);
      assertThat(cluster.server(1).endpoints().get(0).port()).isNotEqualTo(squatter.getLocalPort());
      assertThat(cluster.endpoint(1)).isEqualTo(endpoint);
      assertThat(whoami(nodeProxy(1))).isEqualTo("1");
    }
  }

  @Test
  void restartOfARunningNodeReplacesItsServer() {
    startCluster(1);
    TetherServer first = cluster.server(0);
    cluster.restart(0);
    assertThat(cluster.server(0)).isNotSameAs(first);
    assertThat(whoami(nodeProxy(0))).isEqualTo("0");
  }

  @Test
  void frozenNodeTimesCallsOutUntilItIsUnfrozen() {
    startCluster(3);
    Proxy third = nodeProxy(2);
    third.ping(); // connected before the freeze, and without the short timeout a cold start could
    // miss
    Proxy impatient = third.withInvocationTimeout(Duration.ofMillis(300));
    cluster.freeze(2);
    assertThatThrownBy(() -> whoami(impatient)).isInstanceOf(InvocationTimeoutException.class);
    assertThat(whoami(nodeProxy(0))).isEqualTo("0");
    cluster.unfreeze(2);
    assertThat(whoami(impatient)).isEqualTo("2");
    assertThat(cluster.isUp(2)).isTrue();
  }

  @Test
  void gracefulStopLetsTheCallInFlightFinish() throws Exception {
    startCluster(2);
    Proxy first = nodeProxy(0);
    first.ping();
    Connection connection = first.connection();
    CompletableFuture<byte[]> call = first.invokeAsync("slow", new byte[0]);
    await().atMost(PATIENCE).until(() -> slowCallsRunning.get() == 1);
    CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> cluster.stop(0));
    await()
        .atMost(PATIENCE)
        .until(() -> tether.connection(connection).state() == ConnectionState.DRAINING);
    assertThat(cluster.isUp(0)).isFalse();
    assertThat(call).isNotDone();
    release.countDown();
    assertThat(answer(call.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))).isEqualTo("0");
    stopped.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
    assertThatThrownBy(() -> whoami(nodeProxy(0))).isInstanceOf(ConnectFailedException.class);
    assertThat(whoami(nodeProxy(1))).isEqualTo("1");
  }

  @Test
  void stoppedNodeComesBackOnRestart() {
    startCluster(2);
    cluster.stop(1, Duration.ofSeconds(1));
    cluster.stop(1);
    cluster.restart(1);
    assertThat(whoami(nodeProxy(1))).isEqualTo("1");
  }

  @Test
  void addedNodeJoinsTheClusterAndAnswers() {
    startCluster(3);
    int fourth = cluster.add();
    assertThat(fourth).isEqualTo(3);
    assertThat(cluster.size()).isEqualTo(4);
    assertThat(cluster.endpoints()).hasSize(4).doesNotHaveDuplicates();
    assertThat(cluster.proxyString("node")).endsWith(":" + cluster.endpoint(3));
    assertThat(whoami(nodeProxy(3))).isEqualTo("3");
    assertThat(configuredNodes).containsExactly(0, 1, 2, 3);
  }

  @Test
  void emptyClusterGrowsByAdding() {
    startCluster(0);
    assertThat(cluster.size()).isZero();
    assertThat(cluster.add()).isZero();
    assertThat(whoami(tether.proxy(cluster.proxyString("node")))).isEqualTo("0");
  }

  @Test
  void closeToleratesStoppedAndKilledNodesAndIsIdempotent() {
    startCluster(3);
    cluster.stop(0, Duration.ofSeconds(1));
    cluster.kill(1);
    cluster.close();
    cluster.close();
    for (int i = 0; i < 3; i++) {
      assertThat(cluster.isUp(i)).isFalse();
    }
    assertThatThrownBy(() -> whoami(nodeProxy(2))).isInstanceOf(ConnectFailedException.class);
    assertThatThrownBy(cluster::add).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> cluster.restart(0)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void nodeIndexOutOfRangeIsRefused() {
    startCluster(1);
    assertThatThrownBy(() -> cluster.kill(1)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> InProcessCluster.start(-1, (node, server) -> {}))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
