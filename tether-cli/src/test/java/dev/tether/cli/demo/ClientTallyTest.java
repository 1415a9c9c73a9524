package dev.tether.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ConnectFailedException;
import dev.tether.ConnectionLostException;
import dev.tether.InvocationTimeoutException;
import dev.tether.RemoteException;
import dev.tether.RequestRefusedException;
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
    assertThat(ClientTally.mayHaveExecuted(new RemoteException("java.lang.Error", "boom"))).isTrue();
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
}
