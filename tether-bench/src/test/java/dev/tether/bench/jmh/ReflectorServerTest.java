package dev.tether.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Proxy;
import dev.tether.Tether;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The benchmark's stand-in server, driven by a real Tether client over loopback. */
class ReflectorServerTest {

  private ReflectorServer server;
  private Tether tether;
  private Proxy proxy;

  @BeforeEach
  void connect() {
    server = ReflectorServer.start();
    tether = Tether.create();
    proxy = tether.proxy(server.proxyString("bench"));
  }

  @AfterEach
  void close() {
    tether.close();
    server.close();
  }

  @Test
  void eachConcurrentCallGetsItsOwnBodyBack() throws Exception {
    List<byte[]> requests = new ArrayList<>();
    List<CompletableFuture<byte[]>> answers = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      byte[] request = new byte[i % 3 == 0 ? 64 : 700];
      Arrays.fill(request, (byte) i);
      requests.add(request);
      answers.add(proxy.invokeAsync("echo", request));
    }
    for (int i = 0; i < requests.size(); i++) {
      assertThat(answers.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(requests.get(i));
    }
  }

  @Test
  void aBodyLargerThanOneReadIsReflectedWhole() {
    byte[] request = new byte[1 << 20];
    Arrays.fill(request, (byte) 7);
    assertThat(proxy.invoke("echo", request)).isEqualTo(request);
  }

  @Test
  void anEmptyBodyIsReflected() {
    assertThat(proxy.invoke("echo", new byte[0])).isEmpty();
  }

  @Test
  void theServerAllocatesAlmostNothingPerCall() {
    byte[] payload = new byte[64];
    for (int i = 0; i < 2_000; i++) {
      proxy.invoke("echo", payload);
    }
    int calls = 20_000;
    long before = reflectorAllocatedBytes();
    for (int i = 0; i < calls; i++) {
      proxy.invoke("echo", payload);
    }
    long perCall = (reflectorAllocatedBytes() - before) / calls;
    // Netty's leak detector samples one pooled buffer in 128 and records a stack trace for it:
    // about 25 bytes per call on average. Anything per call in the handler would be far more.
    assertThat(perCall).isLessThan(64);
  }

  private static long reflectorAllocatedBytes() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long total = 0;
    for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (thread != null && thread.getThreadName().startsWith("reflector")) {
        total += threads.getThreadAllocatedBytes(thread.getThreadId());
      }
    }
    return total;
  }
}
