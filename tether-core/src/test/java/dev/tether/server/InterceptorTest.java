package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.PermissionDeniedException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Interceptors over real loopback sockets: metadata a proxy attaches reaches them, and a refusal
 * reaches the caller as PermissionDeniedException, once, with the service never run.
 */
class InterceptorTest {
  private final AtomicInteger serviceRuns = new AtomicInteger();
  private final List<String> intercepted = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private Tether tether;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            // Two endpoints, so a retry would have somewhere else to go.
            .endpoints("tcp -h 127.0.0.1 -p 0:tcp -h 127.0.0.1 -p 0")
            .interceptor(
                call -> {
                  intercepted.add(
                      call.operation()
                          + " token="
                          + call.metadata().get("token")
                          + " from "
                          + ((InetSocketAddress) call.remoteAddress())
                              .getAddress()
                              .getHostAddress());
                  if (!"s3cret".equals(call.metadata().get("token"))) {
                    throw new PermissionDeniedException(
                        "a valid token is required for " + call.operation());
                  }
                })
            .service(
                "vault",
                (op, payload, ctx) -> {
                  serviceRuns.incrementAndGet();
                  return ("opened by " + ctx.metadata().get("token"))
                      .getBytes(StandardCharsets.UTF_8);
                })
            .build()
            .start();
    tether = Tether.create();
  }

  @AfterEach
  void stop() {
    tether.close();
    server.close();
  }

  private Proxy vault() {
    return tether.proxy(server.proxyString("vault"));
  }

  @Test
  void metadataSetWithWithMetadataReachesTheInterceptorAndTheService() {
    byte[] answer = vault().withMetadata("token", "s3cret").invoke("open", new byte[0]);

    assertThat(new String(answer, StandardCharsets.UTF_8)).isEqualTo("opened by s3cret");
    assertThat(intercepted).containsExactly("open token=s3cret from 127.0.0.1");
  }

  @Test
  void refusedCallFailsWithPermissionDeniedOnceAndTheServiceNeverRuns() {
    Proxy p = vault().withMetadata("token", "guess");

    assertThatThrownBy(() -> p.invoke("open", new byte[0]))
        .isInstanceOf(PermissionDeniedException.class)
        .hasMessageContaining("a valid token is required for open");
    assertThat(serviceRuns).hasValue(0);
    assertThat(intercepted).as("never retried, on either endpoint").hasSize(1);
  }

  @Test
  void laterMetadataReplacesEarlierUnderTheSameKeyAndLeavesTheOriginalProxyAsItWas() {
    Proxy wrong = vault().withMetadata("token", "guess");
    Proxy right = wrong.withMetadata("token", "s3cret");

    assertThat(right.invoke("open", new byte[0]))
        .asString(StandardCharsets.UTF_8)
        .isEqualTo("opened by s3cret");
    assertThatThrownBy(() -> wrong.invoke("open", new byte[0]))
        .isInstanceOf(PermissionDeniedException.class);
  }
}
