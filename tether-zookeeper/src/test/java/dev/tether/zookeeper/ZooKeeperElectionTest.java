package dev.tether.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Primary election among three servers, each with its own ZooKeeper session behind its own
 * FaultProxy, so a test can make one vanish the way a crashed machine does: its link goes silent.
 */
class ZooKeeperElectionTest {
  private static final Duration SESSION = Duration.ofSeconds(2);

  /**
   * How soon a silent primary is replaced. ZooKeeper expires a session on the first tick boundary
   * after its timeout since its last packet (which came before the silence): SESSION plus a tick.
   * The expiry's delete, the watch on the election and the latch's check then run on a few threads
   * each, which a loaded 2-core machine delays by up to about a second and a half. The bound stays
   * under two sessions, so a replacement that waited for a second session (or a reconnect) fails.
   */
  private static final Duration REPLACED_WITHIN =
      SESSION.plus(LoopbackZooKeeper.tick()).plusMillis(1_500);

  private final TestingServer zookeeper = LoopbackZooKeeper.server();
  private final KvServers kv = new KvServers();
  private final List<Member> members = new ArrayList<>();
  private final Tether tether = Tether.create();

  /** One server of the cluster with its own link and session to ZooKeeper. */
  private record Member(
      String name,
      TetherServer server,
      FaultProxy link,
      ZooKeeperRegistry registry,
      ClusterMembership membership) {
    String endpoint() {
      return server.endpoints().get(0).toString();
    }
  }

  private void startMembers(int count) {
    for (int i = 0; i < count; i++) {
      String name = "m" + i;
      TetherServer server = kv.start(name);
      FaultProxy link = FaultProxy.start("127.0.0.1", zookeeper.getPort());
      ZooKeeperRegistry registry =
          ZooKeeperRegistry.builder("127.0.0.1:" + link.port())
              .sessionTimeout(SESSION)
              .connectionTimeout(Duration.ofSeconds(1))
              .build();
      members.add(new Member(name, server, link, registry, registry.joinCluster(server, "orders")));
    }
  }

  @AfterEach
  void stop() throws Exception {
    tether.close();
    for (Member m : members) {
      // A link that is gone fails the registry's last deletes at once rather than after a timeout.
      m.link().close();
      m.registry().close();
    }
    kv.close();
    zookeeper.close();
  }

  private Member leader() {
    await()
        .atMost(SESSION.multipliedBy(3))
        .until(() -> members.stream().filter(m -> m.membership().isPrimary()).count() == 1);
    return members.stream().filter(m -> m.membership().isPrimary()).findFirst().orElseThrow();
  }

  /**
   * What {@code leader} announces once its view holds every member: the view fills as the
   * election's children arrive, so a first announcement may name fewer alternates.
   */
  private Topology announcedWithEveryMember(Member leader) {
    await()
        .atMost(SESSION.multipliedBy(3))
        .until(
            () ->
                leader.server().topology() != null
                    && leader.server().topology().alternates().size() == members.size() - 1);
    return leader.server().topology();
  }

  /** Every member of {@code live} announces {@code expected}'s primary and alternates. */
  private void awaitEveryLiveMemberAnnounces(List<Member> live, Topology expected) {
    await()
        .atMost(SESSION.multipliedBy(3))
        .until(() -> live.stream().allMatch(m -> sameOrder(expected, m.server().topology())));
  }

  private static boolean sameOrder(Topology expected, Topology announced) {
    return announced != null
        && expected.primary().equals(announced.primary())
        && expected.alternates().equals(announced.alternates());
  }

  private static List<Member> without(List<Member> all, Member gone) {
    return all.stream().filter(m -> m != gone).toList();
  }

  @Test
  void theLeaderIsThePrimaryEveryMemberAnnouncesAndTheOthersAreItsAlternates() {
    startMembers(3);
    Member leader = leader();
    List<String> others = without(members, leader).stream().map(Member::endpoint).toList();
    Topology announced = announcedWithEveryMember(leader);
    assertThat(announced.primary()).isEqualTo(leader.endpoint());
    assertThat(announced.alternates()).containsExactlyInAnyOrderElementsOf(others);
    awaitEveryLiveMemberAnnounces(members, announced);
  }

  @Test
  void aClientGivenAFollowersAddressCallsTheLeader() {
    startMembers(3);
    Member leader = leader();
    // Every member has joined the view the leader announces, and every member announces it.
    awaitEveryLiveMemberAnnounces(members, announcedWithEveryMember(leader));
    Member follower = without(members, leader).get(0);

    Proxy orders = tether.proxy(KvServers.SERVICE + ":" + follower.endpoint());

    assertThat(orders.invoke("whoami", new byte[0])).asString().isEqualTo(leader.name());
    assertThat(orders.alternateWasUsed()).isFalse();
  }

  @Test
  void aPrimaryShuttingDownGracefullyHandsOverBeforeItDrains() {
    startMembers(3);
    Member leader = leader();
    String successor = announcedWithEveryMember(leader).alternates().get(0);
    leader.server().shutdownGracefully(Duration.ofSeconds(5));
    List<Member> live = without(members, leader);
    Member next =
        live.stream().filter(m -> m.endpoint().equals(successor)).findFirst().orElseThrow();
    awaitEveryLiveMemberAnnounces(
        live, Topology.of(successor, without(live, next).stream().map(Member::endpoint).toList()));
    // The view comes from the election's children and the leadership from the latch's own watch:
    // either may hear of the old primary's departure first.
    await().atMost(SESSION).until(() -> next.membership().isPrimary());
  }

  @Test
  void aKilledPrimaryIsReplacedWithinTheSessionTimeoutAndSessionlessCallsContinueOnTheNewPrimary()
      throws Exception {
    startMembers(3);
    Member leader = leader();
    awaitEveryLiveMemberAnnounces(members, announcedWithEveryMember(leader));
    Proxy orders =
        tether
            .proxy(KvServers.SERVICE + ":" + leader.endpoint())
            .withInvocationTimeout(Duration.ofSeconds(5));
    assertThat(orders.invoke("whoami", new byte[0])).asString().isEqualTo(leader.name());
    CallLoad load =
        new CallLoad(orders, 2, "whoami", Idempotency.IDEMPOTENT, 50_000, Duration.ofSeconds(20));
    Member next;
    try (load) {
      // A crash: the server's sockets die and its ZooKeeper session goes silent until it expires.
      long silentNanos = System.nanoTime();
      leader.link().freeze();
      leader.server().close();
      List<Member> live = without(members, leader);
      assertThat(REPLACED_WITHIN).isLessThan(SESSION.multipliedBy(2));
      await()
          .atMost(REPLACED_WITHIN)
          .pollInterval(Duration.ofMillis(10))
          .until(() -> live.stream().anyMatch(m -> m.membership().isPrimary()));
      assertThat(Duration.ofNanos(System.nanoTime() - silentNanos))
          .as("from the primary's silence to its replacement")
          .isLessThanOrEqualTo(REPLACED_WITHIN);
      next = live.stream().filter(m -> m.membership().isPrimary()).findFirst().orElseThrow();
      awaitEveryLiveMemberAnnounces(
          live,
          Topology.of(
              next.endpoint(), without(live, next).stream().map(Member::endpoint).toList()));
    }
    assertThat(load.failures()).isEmpty();
    for (int i = 0; i < 20; i++) {
      assertThat(orders.invoke("whoami", new byte[0], Idempotency.IDEMPOTENT))
          .asString()
          .isEqualTo(next.name());
    }
  }
}
