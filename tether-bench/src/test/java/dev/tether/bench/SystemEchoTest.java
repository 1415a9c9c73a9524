package dev.tether.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every registered system, over a real loopback connection: many calls in flight, each answered
 * with its own echo.
 */
class SystemEchoTest {

  static List<SystemSpec> systems() {
    return SystemCatalog.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("systems")
  void concurrentCallsOverTheOneConnectionEachGetTheirOwnEcho(SystemSpec spec) throws Exception {
    try (BenchSystem system = spec.inJvm()) {
      system.start();
      List<byte[]> requests = new ArrayList<>();
      List<CompletableFuture<byte[]>> responses = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        byte[] request = distinctPayload(i, i % 2 == 0 ? 64 : 4096);
        requests.add(request);
        responses.add(call(system, request));
      }
      for (int i = 0; i < requests.size(); i++) {
        assertThat(responses.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(requests.get(i));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("systems")
  void anEmptyPayloadIsEchoed(SystemSpec spec) throws Exception {
    try (BenchSystem system = spec.inJvm()) {
      system.start();
      assertThat(call(system, new byte[0]).get(10, TimeUnit.SECONDS)).isEmpty();
    }
  }

  private static CompletableFuture<byte[]> call(BenchSystem system, byte[] request) {
    FutureHandler response = new FutureHandler();
    system.call(request, response);
    return response;
  }

  private static byte[] distinctPayload(int seed, int size) {
    byte[] payload = LoadGenerator.payload(size);
    payload[0] = (byte) seed;
    return payload;
  }

  /** A handler that completes itself with the call's outcome. */
  private static final class FutureHandler extends CompletableFuture<byte[]>
      implements ResponseHandler {
    @Override
    public void onResponse(byte[] response) {
      complete(response);
    }

    @Override
    public void onFailure(Throwable cause) {
      completeExceptionally(cause);
    }
  }
}
