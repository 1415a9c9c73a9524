package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The two-process mode over a real server JVM on loopback. */
class TwoProcessSystemTest {

  private final SystemSpec rawNetty = SystemCatalog.byName(SystemSpec.RAW_NETTY);

  @Test
  void aServerInAJvmOfItsOwnAnswersCallsAndReportsItsCpuTime() throws Exception {
    try (ServerProcessPool pool = new ServerProcessPool();
        BenchSystem system = new TwoProcessSystem(pool, rawNetty)) {
      system.start();
      byte[] request = LoadGenerator.payload(64);
      CompletableFuture<byte[]> reply = new CompletableFuture<>();
      system.call(
          request,
          new ResponseHandler() {
            @Override
            public void onResponse(byte[] response) {
              reply.complete(response);
            }

            @Override
            public void onFailure(Throwable cause) {
              reply.completeExceptionally(cause);
            }
          });

      assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo(request);
      // A JVM that started and answered has used CPU time; this process cannot have counted it.
      assertThat(system.serverCpuNanos()).isPresent();
      assertThat(system.serverCpuNanos().getAsLong()).isPositive();
    }
  }

  @Test
  void aRunReusesTheServerProcessOfItsSystemAndClosingThePoolStopsIt() throws Exception {
    int port;
    try (ServerProcessPool pool = new ServerProcessPool()) {
      port = pool.serverOf(rawNetty).port();
      assertThat(pool.serverOf(rawNetty).port()).isEqualTo(port);
    }
    int stoppedPort = port;
    assertThatThrownBy(() -> new Socket("127.0.0.1", stoppedPort).close())
        .isInstanceOf(ConnectException.class);
  }
}
