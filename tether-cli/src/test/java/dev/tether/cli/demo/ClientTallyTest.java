package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectionLostException;
import dev.tether.InvocationTimeoutException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientTallyTest {

  @Test
  void aLostConnectionCountsUnderItsMayHaveExecutedFlag() {
    ClientTally tally = new ClientTally();

    tally.failed(Operation.INCREMENT, new ConnectionLostException("lost", true));
    tally.failed(Operation.INCREMENT, new ConnectionLostException("lost", false));
    tally.failed(Operation.PUT, new ConnectionLostException("lost", true));

    assertThat(tally.failuresByKind())
        .containsEntry("ConnectionLostException mayHaveExecuted=true", 2L)
        .containsEntry("ConnectionLostException mayHaveExecuted=false", 1L);
    assertThat(tally.incrementFailuresThatMayHaveExecuted()).isEqualTo(1);
    assertThat(tally.failed(Operation.INCREMENT)).isEqualTo(2);
  }

  @Test
  void onlyFailuresThatProveNothingRanCountAsNotExecuted() {
    assertThat(ClientTally.mayHaveExecuted(new ConnectFailedException("no route"))).isFalse();
    assertThat(ClientTally.mayHaveExecuted(new RequestRefusedException("refused"))).isFalse();
    assertThat(ClientTally.mayHaveExecuted(new InvocationTimeoutException("slow"))).isTrue();
    assertThat(ClientTally.mayHaveExecuted(new RemoteException("java.lang.Error", "boom")))
        .isTrue();
    assertThat(ClientTally.mayHaveExecuted(new IllegalStateException("unexpected"))).isTrue();
  }

  @Test
  void successesAreCountedPerServer() {
    ClientTally tally = new ClientTally();

    tally.succeeded(Operation.GET, "server-1");
    tally.succeeded(Operation.PUT, "server-1");
    tally.succeeded(Operation.INCREMENT, "server-2");

    assertThat(tally.answeredBy()).containsEntry("server-1", 2L).containsEntry("server-2", 1L);
    assertThat(tally.ok(Operation.GET)).isEqualTo(1);
  }

  @Test
  void failuresAreKeptPerOperationSoIdempotentOnesShowApart() {
    ClientTally tally = new ClientTally();

    tally.failed(Operation.GET, new ConnectFailedException("refused"));
    tally.failed(Operation.INCREMENT, new ConnectionLostException("lost", true));

    assertThat(tally.failuresByKind(Operation.GET))
        .containsExactly(Map.entry("ConnectFailedException", 1L));
    assertThat(tally.failuresByKind(Operation.PUT)).isEmpty();
    assertThat(tally.failuresByKind(Operation.INCREMENT))
        .containsOnlyKeys(ClientTally.LOST_AFTER_SEND);
    assertThat(tally.failed(Operation.GET)).isEqualTo(1);
  }
}
