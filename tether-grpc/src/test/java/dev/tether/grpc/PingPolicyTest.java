package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.testing.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How {@link PingPolicy} counts a client's pings, on a clock the test moves. */
class PingPolicyTest {
  private final ManualClock clock = new ManualClock(0);
  private final PingPolicy policy =
      new PingPolicy(new PingPolicy.Permit(Duration.ofMinutes(1), false), clock);

  @Test
  void pingsWhileCallsRunAreJudgedByThePermitAndWithoutCallsByTwoHours() {
    clock.forward(Duration.ofMinutes(2));
    assertThat(policy.pingReceived(true)).isFalse();
    clock.forward(Duration.ofMinutes(2));
    assertThat(policy.pingReceived(true)).isFalse();
    clock.forward(Duration.ofMinutes(2));

    // Two minutes after the last valid ping, but no call runs: strikes, and the third ends it.
    assertThat(policy.pingReceived(false)).isFalse();
    assertThat(policy.pingReceived(false)).isFalse();
    assertThat(policy.pingReceived(false)).isTrue();
  }

  @Test
  void whatTheServerSendsClearsTheStrikes() {
    assertThat(policy.pingReceived(true)).isFalse();
    assertThat(policy.pingReceived(true)).isFalse();
    policy.serverSent();
    assertThat(policy.pingReceived(true)).isFalse();
    assertThat(policy.pingReceived(true)).isFalse();
    assertThat(policy.pingReceived(true)).isTrue();
  }

  @Test
  void aZeroPermitWithCallsOrWithoutAllowsEveryPing() {
    PingPolicy any = new PingPolicy(new PingPolicy.Permit(Duration.ZERO, true), clock);
    for (int i = 0; i < 10; i++) {
      assertThat(any.pingReceived(i % 2 == 0)).isFalse();
    }
  }
}
