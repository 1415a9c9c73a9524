package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Which of a key's connections (its own and the extras opened under load) takes a call: never one
 * still handshaking, such as the key's own connection dialled again after a loss, since a call
 * written behind its HELLO would wait for a server that may never answer.
 */
class LeastLoadedLaneTest {
  private final ScriptedChannel fallback = ScriptedChannel.to(7000).connects(null);

  @Test
  void aLaneStillHandshakingTakesNoCallWhileAReadyLaneExists() {
    ScriptedChannel redialling = ScriptedChannel.to(7000);
    ScriptedChannel extra = ScriptedChannel.to(7000).connects(null);

    RequestChannel chosen =
        RequestChannel.leastLoaded(new RequestChannel[] {redialling, extra}, fallback);

    assertThat(redialling.isUsable()).isTrue();
    assertThat(chosen).isSameAs(extra);
  }

  @Test
  void aLaneThatClosedTakesNoCall() {
    ScriptedChannel closed = ScriptedChannel.to(7000).connects(null);
    closed.close();
    ScriptedChannel extra = ScriptedChannel.to(7000).connects(null);

    assertThat(RequestChannel.leastLoaded(new RequestChannel[] {closed, extra}, fallback))
        .isSameAs(extra);
  }

  @Test
  void withNoLaneReadyTheCallStaysOnTheConnectionItWasHandedTo() {
    ScriptedChannel redialling = ScriptedChannel.to(7000);
    ScriptedChannel failed = ScriptedChannel.to(7000);
    failed.failsToConnect(new IOException("refused"));

    assertThat(RequestChannel.leastLoaded(new RequestChannel[] {redialling, failed}, fallback))
        .isSameAs(fallback);
  }

  @Test
  void aLaneThatAnsweredItsHandshakeTakesCallsAgain() {
    ScriptedChannel redialling = ScriptedChannel.to(7000);
    ScriptedChannel extra = ScriptedChannel.to(7000).connects(null);
    RequestChannel[] lanes = {redialling, extra};
    assertThat(RequestChannel.leastLoaded(lanes, fallback)).isSameAs(extra);

    redialling.connects(null);

    assertThat(RequestChannel.leastLoaded(lanes, fallback)).isSameAs(redialling);
  }
}
