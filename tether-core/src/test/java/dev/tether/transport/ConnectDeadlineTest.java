package dev.tether.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.testing.ManualClock;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A transport connect gives up when the runtime's clock says so, not on Netty's own timer. */
class ConnectDeadlineTest {
  private static final Duration LIMIT = Duration.ofMillis(300);
  private static final InetSocketAddress REMOTE = new InetSocketAddress("127.0.0.1", 7000);

  private final ManualClock clock = new ManualClock(0);
  private final EmbeddedChannel channel = new EmbeddedChannel();

  @AfterEach
  void closeChannel() {
    channel.finishAndReleaseAll();
  }

  @Test
  void pendingConnectFailsWithAConnectTimeoutOnceTheClockPassesTheLimit() {
    ChannelPromise connecting = channel.newPromise();
    ChannelFuture bounded = ConnectDeadline.bound(connecting, REMOTE, LIMIT, clock);

    clock.forward(LIMIT.minusMillis(1));
    channel.runPendingTasks();
    assertThat(bounded.isDone()).isFalse();

    clock.forward(Duration.ofMillis(1));
    channel.runPendingTasks();
    assertThat(bounded.cause())
        .isInstanceOf(ConnectTimeoutException.class)
        .hasMessageContaining("300 ms");
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void connectThatSucceedsInTimeCancelsItsDeadline() {
    ChannelPromise connecting = channel.newPromise();
    ChannelFuture bounded = ConnectDeadline.bound(connecting, REMOTE, LIMIT, clock);

    connecting.setSuccess();

    assertThat(bounded.isSuccess()).isTrue();
    assertThat(clock.pendingTasks()).isZero();
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void connectThatFailsInTimeKeepsItsOwnCause() {
    ChannelPromise connecting = channel.newPromise();
    ChannelFuture bounded = ConnectDeadline.bound(connecting, REMOTE, LIMIT, clock);
    java.net.ConnectException refused = new java.net.ConnectException("Connection refused");

    connecting.setFailure(refused);
    clock.forward(LIMIT);
    channel.runPendingTasks();

    assertThat(bounded.cause()).isSameAs(refused);
  }

  @Test
  void connectAlreadyDoneIsReturnedAsItIs() {
    ChannelFuture done = channel.newSucceededFuture();

    assertThat(ConnectDeadline.bound(done, REMOTE, LIMIT, clock)).isSameAs(done);
    assertThat(clock.pendingTasks()).isZero();
  }
}
