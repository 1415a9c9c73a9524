package dev.tether.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Idempotency;
import dev.tether.Proxy;
import dev.tether.SessionLostException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.Topology;
import dev.tether.observe.TetherEvent;
import dev.tether.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One primary at a time: three servers elect theirs on a ZooKeeper ensemble of three, each through
 * its own FaultProxy to every ZooKeeper member, so a test can cut one server off from ZooKeeper
 * while its clients still reach it.
 */
class ZooKeeperFencingTest {
  /**
   * Short, so that a cut-off leader's session ends within seconds; long enough that a busy machine
   * does not suspend healthy members.
   */
  private static final Duration SESSION = Duration.ofSeconds(3);

  /** Only a bound on waits. */
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  /** One ensemble for the class (starting one costs seconds); each test elects its own cluster. */
  private static TestingCluster ensemble;

  private static final AtomicInteger clusters = new AtomicInteger();

  private final String cluster = "orders-" + clusters.incrementAndGet();
  private final KvServers kv = new KvServers();
  private final List<Member> members = new ArrayList<>();
  private final Tether tether = Tether.create();

  /** One server of the cluster with its own links and session to ZooKeeper. */
  private record Member(
      String name,
      TetherServer server,
      List<FaultProxy> links,
      ZooKeeperRegistry registry,
      ClusterMembership membership) {
    String endpoint() {
      return server.endpoints().get(0).toString();
    }

    /** Its links to ZooKeeper go silent; its clients still reach it. */
    void cutOffFromZooKeeper() {
      links.forEach(FaultProxy::freeze);
    }
  }

  private void startMembers() {
    for (int i = 0; i < 3; i++) {
      String name = "m" + i;
      TetherServer server = kv.start(name);
      List<FaultProxy> links = new ArrayList<>();
      for (InstanceSpec zk : ensemble.getInstances()) {
        links.add(FaultProxy.start("127.0.0.1", zk.getPort()));
      }
      String connect =
          links.stream().map(l -> "127.0.0.1:" + l.port()).collect(Collectors.joining(","));
      ZooKeeperRegistry registry =
          ZooKeeperRegistry.builder(connect)
              .sessionTimeout(SESSION)
              .connectionTimeout(Duration.ofSeconds(2))
              .build();
      members.add(new Member(name, server, links, registry, registry.joinCluster(server, cluster)));
    }
  }

  @AfterEach
  void stop() throws Exception {
    tether.close();
    for (Member m : members) {
      m.links().forEach(FaultProxy::close);
      m.registry().close();
    }
    kv.close();
  }

  @BeforeAll
  static void startEnsemble() {
    ensemble = LoopbackZooKeeper.cluster(3);
  }

  @AfterAll
  static void stopEnsemble() throws Exception {
    ensemble.close();
  }

  /** The leader, once every member announces it with all three members in the view. */
  private Member settledLeader() {
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                members.stream().filter(m -> m.membership().isPrimary()).count() == 1
                    && everyMemberAnnounces(members, primaryOfAll()));
    return members.stream().filter(m -> m.membership().isPrimary()).findFirst().orElseThrow();
  }

  private Topology primaryOfAll() {
    Topology t = members.get(0).server().topology();
    return t != null && t.alternates().size() == 2 ? t : null;
  }

  private static boolean everyMemberAnnounces(List<Member> some, Topology expected) {
    return expected != null && some.stream().allMatch(m -> expected.equals(m.server().topology()));
  }

  private static List<Member> without(List<Member> all, Member gone) {
    return all.stream().filter(m -> m != gone).toList();
  }

  /** The member of {@code live} that leads, once every one of them announces it. */
  private Member awaitNewLeaderAnnouncedBy(List<Member> live, Member old) {
    await()
        .atMost(SESSION.plus(PATIENCE))
        .until(
            () -> {
              Topology t = live.get(0).server().topology();
              return t != null
                  && !t.primary().equals(old.endpoint())
                  && live.stream().anyMatch(m -> m.membership().isPrimary())
                  && everyMemberAnnounces(live, t);
            });
    String primary = live.get(0).server().topology().primary();
    return live.stream().filter(m -> m.endpoint().equals(primary)).findFirst().orElseThrow();
  }

  @Test
  void
      aLeaderCutOffFromZooKeeperStopsBeingAnyonesPrimaryAndTakesNoWriteOnceTheNewLeaderIsAnnounced()
          throws Exception {
    startMembers();
    Member leader = settledLeader();
    Topology before = leader.server().topology();
    Proxy writes =
        tether
            .proxy(KvServers.SERVICE + ":" + leader.endpoint())
            .withInvocationTimeout(Duration.ofSeconds(5));
    assertThat(writes.invoke("whoami", new byte[0])).asString().isEqualTo(leader.name());
    List<Member> live = without(members, leader);
    CallLoad load =
        new CallLoad(
            writes, 2, "increment", Idempotency.NOT_IDEMPOTENT, 100_000, Duration.ofSeconds(25));
    Member next;
    int servedByDeposedWhenAnnounced;
    try (load) {
      await().atMost(PATIENCE).until(() -> load.succeeded() > 50);
      leader.cutOffFromZooKeeper();

      // Within its session's suspension (two thirds of it), before the session can expire.
      await()
          .atMost(SESSION)
          .until(() -> !leader.server().topology().primary().equals(leader.endpoint()));
      // The step-down and the latch's loss of leadership follow the same suspension, each on a
      // thread of its own.
      await().atMost(SESSION).until(() -> !leader.membership().isPrimary());
      assertThat(leader.server().topology().epoch()).isGreaterThan(before.epoch());

      next = awaitNewLeaderAnnouncedBy(live, leader);
      servedByDeposedWhenAnnounced = kv.served(leader.name());
      int servedByNext = kv.served(next.name());
      await().atMost(PATIENCE).until(() -> kv.served(next.name()) > servedByNext + 200);
    }

    assertThat(kv.served(leader.name())).isEqualTo(servedByDeposedWhenAnnounced);
    assertThat(load.failures()).isEmpty();
    assertThat(kv.executions().values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(next.server().topology().epoch()).isGreaterThan(before.epoch() + 1);
    // A client that only knows the deposed leader's address writes to the new leader.
    Proxy fresh = tether.proxy(KvServers.SERVICE + ":" + leader.endpoint());
    assertThat(fresh.invoke("increment", "fresh".getBytes(), Idempotency.NOT_IDEMPOTENT))
        .asString()
        .isEqualTo(next.name());
    assertThat(kv.served(leader.name())).isEqualTo(servedByDeposedWhenAnnounced);
  }

  @Test
  void aSessionOnALeaderCutOffFromZooKeeperEndsOnceAndGoesOnOnTheNewLeader() throws Exception {
    startMembers();
    Member leader = settledLeader();
    Proxy session =
        tether
            .proxy(KvServers.SERVICE + ":" + leader.endpoint())
            .withInvocationTimeout(Duration.ofSeconds(5))
            .withSession("orders-unit");
    List<Member> live = without(members, leader);
    // The load outlasts every wait below (its own time bound must not end it first).
    CallLoad load =
        new CallLoad(
            session,
            1,
            "increment",
            Idempotency.NOT_IDEMPOTENT,
            100_000,
            PATIENCE.plus(SESSION.plus(PATIENCE)).plus(PATIENCE).plus(PATIENCE));
    Member next;
    int servedByDeposedWhenAnnounced;
    try (load) {
      await().atMost(PATIENCE).until(() -> load.succeeded() > 50);
      leader.cutOffFromZooKeeper();

      next = awaitNewLeaderAnnouncedBy(live, leader);
      servedByDeposedWhenAnnounced = kv.served(leader.name());
      int servedByNext = kv.served(next.name());
      try {
        await().atMost(PATIENCE).until(() -> kv.served(next.name()) > servedByNext + 200);
      } catch (ConditionTimeoutException e) {
        throw new AssertionError(
            next.name() + " was announced; the session's calls: " + load.timeline(), e);
      }
    }

    assertThat(kv.served(leader.name()))
        .as("session writes on the deposed leader after the announcement")
        .isEqualTo(servedByDeposedWhenAnnounced);
    List<String> outcomes = load.outcomes();
    int lost = outcomes.indexOf("SessionLostException");
    assertThat(lost).as("the session was lost once: " + outcomes).isPositive();
    assertThat(outcomes.subList(0, lost)).as("" + load.failures()).containsOnly(leader.name());
    assertThat(outcomes.subList(lost + 1, outcomes.size()))
        .as("every call after the lost one")
        .isNotEmpty()
        .containsOnly(next.name());
    assertThat(load.failures()).hasSize(1);
    assertThat(kv.executions().values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  @Test
  void aClosedLeaderServerGivesLeadershipUp() {
    startMembers();
    Member leader = settledLeader();
    Topology before = leader.server().topology();

    leader.server().close();

    List<Member> live = without(members, leader);
    Member next = awaitNewLeaderAnnouncedBy(live, leader);
    assertThat(leader.membership().isPrimary()).isFalse();
    assertThat(next.membership().isPrimary()).isTrue();
    assertThat(next.server().topology().alternates())
        .containsExactly(without(live, next).get(0).endpoint());
    assertThat(next.server().topology().epoch()).isGreaterThan(before.epoch());
    Proxy orders = tether.proxy(KvServers.SERVICE + ":" + without(live, next).get(0).endpoint());
    assertThat(orders.invoke("whoami", new byte[0])).asString().isEqualTo(next.name());
  }

  @Test
  void aLeaderThatLeavesTheElectionWhileItsServerRunsEndsItsSessionsAndTheyGoOnOnTheNewLeader() {
    startMembers();
    Member leader = settledLeader();
    Proxy session = tether.proxy(KvServers.SERVICE + ":" + leader.endpoint()).withSession("unit");
    assertThat(session.invoke("increment", "before".getBytes(), Idempotency.NOT_IDEMPOTENT))
        .asString()
        .isEqualTo(leader.name());
    AtomicInteger rotations = new AtomicInteger();
    tether.addListener(
        e -> {
          if (e.kind() == TetherEvent.Kind.CONNECTION_ROTATED) {
            rotations.incrementAndGet();
          }
        });

    leader.membership().close();

    Member next = awaitNewLeaderAnnouncedBy(without(members, leader), leader);
    assertThat(leader.server().topology().primary()).isEqualTo(next.endpoint());
    await().atMost(PATIENCE).until(() -> rotations.get() > 0);
    int servedByLeader = kv.served(leader.name());
    assertThatThrownBy(
            () -> session.invoke("increment", "lost".getBytes(), Idempotency.NOT_IDEMPOTENT))
        .isInstanceOf(SessionLostException.class);
    assertThat(session.invoke("increment", "after".getBytes(), Idempotency.NOT_IDEMPOTENT))
        .asString()
        .isEqualTo(next.name());
    assertThat(kv.served(leader.name())).isEqualTo(servedByLeader);
    assertThat(kv.executions()).doesNotContainKey("lost");
  }

  @Test
  void aLeaderBackFromABriefCutOffReentersTheElectionAtItsEndAndEveryMemberAgreesOnALaterEpoch() {
    startMembers();
    Member leader = settledLeader();
    leader.cutOffFromZooKeeper();
    await()
        .atMost(SESSION)
        .until(() -> !leader.server().topology().primary().equals(leader.endpoint()));
    Topology stepped = leader.server().topology();

    leader.links().forEach(FaultProxy::unfreeze);

    await()
        .atMost(PATIENCE)
        .until(
            () -> {
              Topology t = members.get(0).server().topology();
              return t != null
                  && t.epoch() > stepped.epoch()
                  && t.primary().equals(stepped.primary())
                  && t.alternates().size() == 2
                  && t.alternates().get(1).equals(leader.endpoint())
                  && everyMemberAnnounces(members, t);
            });
    assertThat(leader.membership().isPrimary()).isFalse();
  }
}
