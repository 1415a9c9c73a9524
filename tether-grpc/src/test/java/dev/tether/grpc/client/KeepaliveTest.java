package dev.tether.grpc.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The keepalive's decisions (gRFC A8) on the fake clock: when a connection is pinged, when its
 * silence kills it, and how "too_many_pings" stretches the time. Time moves only when told.
 */
class KeepaliveTest {
  private final ManualClock clock = new ManualClock(1_000_000_000L);
  private final List<String> log = new ArrayList<>();
  private boolean calls = true;

  private final Keepalive.Owner owner =
      new Keepalive.Owner() {
        @Override
        public boolean hasCalls() {
          return calls;
        }

        @Override
        public void sendPing(long data) {
          log.add("ping");
        }

        @Override
        public void onPeerSilent(String why) {
          log.add("silent: " + why);
        }
      };

  private Keepalive started(KeepalivePolicy policy) {
    Keepalive k = new Keepalive(policy, owner, clock, clock);
    k.start();
    return k;
  }

  private static KeepalivePolicy policy() {
    return new KeepalivePolicy(Duration.ofMillis(100), Duration.ofMillis(50));
  }

  @Test
  void aConnectionWithCallsIsPingedOnceItWasQuietForTheKeepaliveTime() {
    started(policy());

    clock.forward(Duration.ofMillis(99));
    assertThat(log).isEmpty();
    clock.forward(Duration.ofMillis(1));
    assertThat(log).containsExactly("ping");
  }

  @Test
  void aConnectionWithoutCallsIsNeverPinged() {
    calls = false;
    started(policy());

    clock.forward(Duration.ofSeconds(10));

    assertThat(log).isEmpty();
  }

  @Test
  void whatIsReadPutsThePingOff() {
    Keepalive k = started(policy());

    clock.forward(Duration.ofMillis(60));
    k.onRead();
    clock.forward(Duration.ofMillis(40));
    assertThat(log).isEmpty();
    clock.forward(Duration.ofMillis(60));
    assertThat(log).containsExactly("ping");
  }

  @Test
  void aPingNotAnsweredWithinTheTimeoutSaysThePeerIsSilent() {
    started(policy());

    clock.forward(Duration.ofMillis(149));
    assertThat(log).containsExactly("ping");
    clock.forward(Duration.ofMillis(1));
    assertThat(log).containsExactly("ping", "silent: no answer to a keepalive PING within 50 ms");
  }

  @Test
  void anAnsweredPingKeepsTheConnectionAndTheNextFollowsAKeepaliveTimeLater() {
    Keepalive k = started(policy());

    clock.forward(Duration.ofMillis(100));
    k.onRead();
    k.onPingAnswered(Keepalive.PING_DATA);
    clock.forward(Duration.ofMillis(99));

    assertThat(log).containsExactly("ping");
    clock.forward(Duration.ofMillis(1));
    assertThat(log).containsExactly("ping", "ping");
  }

  @Test
  void tooManyPingsDoublesTheTimeForTheNextConnections() {
    KeepalivePolicy policy = policy();
    policy.onTooManyPings();
    started(policy);

    clock.forward(Duration.ofMillis(199));
    assertThat(log).isEmpty();
    clock.forward(Duration.ofMillis(1));
    assertThat(log).containsExactly("ping");
  }

  @Test
  void aStoppedKeepaliveLeavesNoTimerBehind() {
    Keepalive k = started(policy());
    clock.forward(Duration.ofMillis(100));

    k.stop();
    clock.forward(Duration.ofSeconds(1));

    assertThat(log).containsExactly("ping");
    assertThat(clock.pendingTasks()).isZero();
  }
}
