package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Endpoint;
import dev.tether.Topology;
import dev.tether.internal.SerialExecutor;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The cluster views a runtime learns from its servers, owned by the control executor. */
class TopologyViewsTest {
  private static final List<Endpoint> SEEDS = Endpoint.parseList("tcp -h 127.0.0.1 -p 7000");
  private static final Topology VIEW =
      Topology.of("tcp -h 127.0.0.1 -p 7001", List.of("tcp -h 127.0.0.1 -p 7002"));

  private final SerialExecutor control = new SerialExecutor();
  private final TopologyViews views = new TopologyViews(control);

  @Test
  void noViewIsInForceUntilAServerAnnouncesOne() {
    assertThat(views.learn(SEEDS, ScriptedChannel.to(7000).connects(null))).isNull();
    assertThat(views.failoverOrder(SEEDS)).isNull();
  }

  @Test
  void announcedViewReplacesTheSeedsPrimaryFirst() {
    List<Endpoint> learned = views.learn(SEEDS, ScriptedChannel.to(7000).connects(VIEW));

    assertThat(learned).isEqualTo(VIEW.failoverOrder());
    assertThat(views.failoverOrder(SEEDS)).extracting(Endpoint::port).containsExactly(7001, 7002);
  }

  @Test
  void aServerThatLaterAnnouncesNoViewLeavesTheLearnedOneInForce() {
    views.learn(SEEDS, ScriptedChannel.to(7001).connects(VIEW));

    assertThat(views.learn(SEEDS, ScriptedChannel.to(7002).connects(null)))
        .isEqualTo(VIEW.failoverOrder());
    assertThat(views.failoverOrder(SEEDS)).isEqualTo(VIEW.failoverOrder());
  }

  @Test
  void aNewAnnouncementOnTheSourceConnectionReplacesItsViews() {
    ScriptedChannel primary = ScriptedChannel.to(7001).connects(VIEW);
    views.learn(SEEDS, primary);
    Topology moved = Topology.of("tcp -h 127.0.0.1 -p 7002", List.of("tcp -h 127.0.0.1 -p 7001"));

    primary.announces(moved);
    views.relearn(primary);

    assertThat(views.failoverOrder(SEEDS)).extracting(Endpoint::port).containsExactly(7002, 7001);
  }

  @Test
  void anAnnouncementOnAConnectionTheViewDidNotComeFromChangesNothing() {
    views.learn(SEEDS, ScriptedChannel.to(7001).connects(VIEW));
    ScriptedChannel other = ScriptedChannel.to(7002).connects(VIEW);

    other.announces(Topology.of("tcp -h 127.0.0.1 -p 7009", List.of()));
    views.relearn(other);

    assertThat(views.failoverOrder(SEEDS)).isEqualTo(VIEW.failoverOrder());
  }

  @Test
  void aWriteFromAnotherThreadWaitsForTheControlExecutorAndReadersSeeTheOldViewUntilThen()
      throws Exception {
    ScriptedChannel primary = ScriptedChannel.to(7001).connects(VIEW);
    views.learn(SEEDS, primary);
    primary.announces(Topology.of("tcp -h 127.0.0.1 -p 7002", List.of()));
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread owner =
        new Thread(
            () ->
                control.execute(
                    () -> {
                      holding.countDown();
                      awaitQuietly(release);
                    }));
    owner.start();
    assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();

    views.relearn(primary);
    assertThat(views.failoverOrder(SEEDS)).isEqualTo(VIEW.failoverOrder());

    release.countDown();
    owner.join(5_000);
    assertThat(views.failoverOrder(SEEDS)).extracting(Endpoint::port).containsExactly(7002);
  }

  @Test
  void aConnectionOutsideTheViewIsAConnectionManager() {
    assertThat(TopologyViews.isOutside(VIEW.failoverOrder(), ScriptedChannel.to(7000))).isTrue();
    assertThat(TopologyViews.isOutside(VIEW.failoverOrder(), ScriptedChannel.to(7002))).isFalse();
    assertThat(TopologyViews.isOutside(null, ScriptedChannel.to(7000))).isFalse();
  }

  @Test
  void aConnectionToAnAlternateIsReportedAsOne() {
    views.learn(SEEDS, ScriptedChannel.to(7001).connects(VIEW));

    assertThat(views.isAlternate(SEEDS, ScriptedChannel.to(7002))).isTrue();
    assertThat(views.isAlternate(SEEDS, ScriptedChannel.to(7001))).isFalse();
  }

  @Test
  void aProxyOnTheOldPrimaryForgetsItsConnectionWhenTheViewNamesAnotherPrimary() {
    ScriptedChannel toPrimary = ScriptedChannel.to(7001).connects(VIEW);
    views.learn(SEEDS, toPrimary);
    ProxyBinding binding = followingOn(toPrimary);

    toPrimary.announces(
        Topology.of("tcp -h 127.0.0.1 -p 7002", List.of("tcp -h 127.0.0.1 -p 7001")));
    views.relearn(toPrimary);

    assertThat(binding.cachedConnection()).isNull();
  }

  @Test
  void aProxyAlreadyOnTheNewPrimaryKeepsItsConnection() {
    ScriptedChannel toPrimary = ScriptedChannel.to(7001).connects(VIEW);
    views.learn(SEEDS, toPrimary);
    ScriptedChannel toAlternate = ScriptedChannel.to(7002).connects(VIEW);
    ProxyBinding binding = followingOn(toAlternate);

    toPrimary.announces(Topology.of("tcp -h 127.0.0.1 -p 7002", List.of()));
    views.relearn(toPrimary);

    assertThat(binding.cachedConnection()).isSameAs(toAlternate);
  }

  @Test
  void aViewWhoseAlternatesChangeButNotItsPrimaryMovesNobody() {
    ScriptedChannel toPrimary = ScriptedChannel.to(7001).connects(VIEW);
    views.learn(SEEDS, toPrimary);
    ScriptedChannel toAlternate = ScriptedChannel.to(7002).connects(VIEW);
    ProxyBinding binding = followingOn(toAlternate);

    toPrimary.announces(
        Topology.of("tcp -h 127.0.0.1 -p 7001", List.of("tcp -h 127.0.0.1 -p 7003")));
    views.relearn(toPrimary);

    assertThat(binding.cachedConnection()).isSameAs(toAlternate);
  }

  @Test
  void aPrimaryThatMovedBetweenSettlingAndFollowingIsAppliedWhenFollowing() {
    ScriptedChannel toPrimary = ScriptedChannel.to(7001).connects(VIEW);
    views.learn(SEEDS, toPrimary);
    ProxyBinding binding = new ProxyBinding(null, null);
    binding.cache(toPrimary, false);
    toPrimary.announces(Topology.of("tcp -h 127.0.0.1 -p 7002", List.of()));
    views.relearn(toPrimary);

    views.follow(SEEDS, binding, toPrimary, VIEW.failoverOrder());

    assertThat(binding.cachedConnection()).isNull();
  }

  @Test
  void aViewOfAnOlderElectionNeverReplacesTheOneInForce() {
    views.learn(SEEDS, ScriptedChannel.to(7002).connects(elected(7002, 8)));
    ScriptedChannel lagging = ScriptedChannel.to(7001).connects(elected(7001, 6));

    assertThat(views.learn(SEEDS, lagging)).extracting(Endpoint::port).containsExactly(7002, 7001);
    lagging.announces(elected(7001, 7));
    views.relearn(lagging);

    assertThat(views.failoverOrder(SEEDS)).extracting(Endpoint::port).containsExactly(7002, 7001);
  }

  @Test
  void whenMembersAnnounceDifferentViewsTheHighestEpochWins() {
    views.learn(SEEDS, ScriptedChannel.to(7001).connects(elected(7001, 4)));
    views.learn(SEEDS, ScriptedChannel.to(7002).connects(elected(7002, 10)));
    views.learn(SEEDS, ScriptedChannel.to(7003).connects(elected(7003, 6)));

    assertThat(views.failoverOrder(SEEDS)).first().extracting(Endpoint::port).isEqualTo(7002);
  }

  @Test
  void aViewOfNoElectionDoesNotReplaceAnElectedOne() {
    views.learn(SEEDS, ScriptedChannel.to(7001).connects(elected(7001, 4)));

    views.learn(SEEDS, ScriptedChannel.to(7002).connects(VIEW));

    assertThat(views.failoverOrder(SEEDS)).first().extracting(Endpoint::port).isEqualTo(7001);
  }

  @Test
  void aPrimarySteppingDownMovesItsFollowersEvenWhenAnotherMemberTaughtTheView() {
    views.learn(SEEDS, ScriptedChannel.to(7002).connects(elected(7001, 4)));
    ScriptedChannel toPrimary = ScriptedChannel.to(7001).connects(elected(7001, 4));
    ProxyBinding binding = new ProxyBinding(null, null);
    binding.cache(toPrimary, false);
    views.follow(SEEDS, binding, toPrimary, views.failoverOrder(SEEDS));

    // Unsure it still leads, the primary announces the view without itself, one epoch up.
    toPrimary.announces(
        new Topology("tcp -h 127.0.0.1 -p 7002", List.of("tcp -h 127.0.0.1 -p 7003"), 5));
    views.relearn(toPrimary);

    assertThat(binding.cachedConnection()).isNull();
    assertThat(views.failoverOrder(SEEDS)).extracting(Endpoint::port).containsExactly(7002, 7003);
  }

  @Test
  void aMemberThatHasNotHeardCannotDrawProxiesBackToAPrimaryThatSteppedDown() {
    ScriptedChannel toPrimary = ScriptedChannel.to(7001).connects(elected(7001, 4));
    views.learn(SEEDS, toPrimary);
    toPrimary.announces(new Topology("tcp -h 127.0.0.1 -p 7002", List.of(), 5));
    views.relearn(toPrimary);

    List<Endpoint> order = views.learn(SEEDS, ScriptedChannel.to(7002).connects(elected(7001, 4)));

    assertThat(order).extracting(Endpoint::port).containsExactly(7002);
    assertThat(views.failoverOrder(SEEDS)).extracting(Endpoint::port).containsExactly(7002);
  }

  /**
   * The view of the election {@code epoch}: {@code primary} first, then the others of 7001-7002.
   */
  private static Topology elected(int primary, long epoch) {
    int other = primary == 7001 ? 7002 : 7001;
    return new Topology(
        "tcp -h 127.0.0.1 -p " + primary, List.of("tcp -h 127.0.0.1 -p " + other), epoch);
  }

  /** A proxy's binding that cached {@code c} under VIEW and follows its primary from now on. */
  private ProxyBinding followingOn(ScriptedChannel c) {
    ProxyBinding binding = new ProxyBinding(null, null);
    binding.cache(
        c, c.remoteAddress() instanceof java.net.InetSocketAddress a && a.getPort() != 7001);
    views.follow(SEEDS, binding, c, VIEW.failoverOrder());
    return binding;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
