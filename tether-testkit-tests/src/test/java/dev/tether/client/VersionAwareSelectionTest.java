package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.EndpointSelection;
import dev.tether.LoadBalancing;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A proxy's server version range against real servers of different versions. */
class VersionAwareSelectionTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ConcurrentHashMap<String, AtomicInteger> executions = new ConcurrentHashMap<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private TetherServer server(String version) {
    TetherServer s =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .version(version)
            .service(
                "svc",
                (op, payload, ctx) -> {
                  executions.computeIfAbsent(version, k -> new AtomicInteger()).incrementAndGet();
                  return version.getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    closeables.add(s);
    return s;
  }

  private Tether tether() {
    Tether t = Tether.create();
    closeables.add(t);
    return t;
  }

  private int executed(String version) {
    return executions.getOrDefault(version, new AtomicInteger()).get();
  }

  private static String endpoint(TetherServer s) {
    return s.endpoints().get(0).toString();
  }

  private static List<String> answers(List<CompletableFuture<byte[]>> calls) throws Exception {
    List<String> out = new ArrayList<>();
    for (CompletableFuture<byte[]> c : calls) {
      out.add(new String(c.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  void concurrentFirstCallsNeverLandOnAnOutOfRangeServerWhoseHandshakeIsStillRunning()
      throws Exception {
    TetherServer old = server("1.0");
    TetherServer current = server("2.0");
    // The out-of-range server first: the first call opens it, and the others arrive while it
    // handshakes.
    Proxy p =
        tether()
            .proxy("svc:" + endpoint(old) + ":" + endpoint(current))
            .withEndpointSelection(EndpointSelection.ORDERED)
            .withServerVersion("[2.0,3.0)");

    List<CompletableFuture<byte[]>> calls = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      calls.add(p.invokeAsync("version", new byte[0]));
    }

    assertThat(answers(calls)).hasSize(20).containsOnly("2.0");
    assertThat(executed("1.0")).isZero();
    assertThat(executed("2.0")).isEqualTo(20);
  }

  @Test
  void proxiesWithDifferentVersionRangesGetTheirOwnNodeGroups() throws Exception {
    TetherServer one = server("1.0");
    TetherServer two = server("2.0");
    Tether t = tether();
    Proxy base =
        t.proxy("svc:" + endpoint(one) + ":" + endpoint(two))
            .withLoadBalancing(LoadBalancing.ROUND_ROBIN);
    Proxy wantsOne = base.withServerVersion("[1.0,2.0)");
    Proxy wantsTwo = base.withServerVersion("[2.0,3.0)");

    List<CompletableFuture<byte[]>> ones = new ArrayList<>();
    List<CompletableFuture<byte[]>> twos = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ones.add(wantsOne.invokeAsync("version", new byte[0]));
      twos.add(wantsTwo.invokeAsync("version", new byte[0]));
    }

    assertThat(answers(ones)).containsOnly("1.0");
    assertThat(answers(twos)).containsOnly("2.0");
    // Each group knows both servers and marks the other range's server incompatible only for
    // itself.
    assertThat(t.status().nodes()).hasSize(4);
    assertThat(t.status().nodes()).filteredOn(n -> n.health().equals("INCOMPATIBLE")).hasSize(2);
  }
}
