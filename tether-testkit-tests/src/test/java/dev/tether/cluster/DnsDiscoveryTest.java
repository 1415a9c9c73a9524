package dev.tether.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.Endpoint;
import dev.tether.observe.TetherEvent;
import dev.tether.spi.DnsDiscovery;
import dev.tether.testkit.FakeClock;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** DNS discovery on a fake resolver and a fake clock: periodic and failure-driven re-resolution. */
class DnsDiscoveryTest {
  private final FakeClock clock = new FakeClock();
  private final AtomicReference<List<String>> answers =
      new AtomicReference<>(List.of("127.0.0.1", "127.0.0.2"));
  private final AtomicInteger lookups = new AtomicInteger();

  private DnsDiscovery discovery() {
    return new DnsDiscovery(
        Endpoint.parse("tcp -h nodes.test -p 7000"),
        host -> {
          lookups.incrementAndGet();
          if (answers.get() == null) {
            throw new UnknownHostException(host);
          }
          List<InetAddress> out = new java.util.ArrayList<>();
          for (String ip : answers.get()) {
            out.add(InetAddress.getByName(ip));
          }
          return out;
        },
        Duration.ofSeconds(30),
        Duration.ofSeconds(1),
        clock,
        clock);
  }

  private static List<String> hosts(DnsDiscovery d) {
    return d.endpoints().stream().map(e -> e.host() + ":" + e.port()).toList();
  }

  @Test
  void eachAddressOfTheNameBecomesAnEndpoint() {
    assertThat(hosts(discovery())).containsExactly("127.0.0.1:7000", "127.0.0.2:7000");
  }

  @Test
  void nameIsResolvedAgainEveryPeriod() {
    DnsDiscovery d = discovery();
    answers.set(List.of("127.0.0.1", "127.0.0.2", "127.0.0.3"));
    clock.forward(Duration.ofSeconds(29));
    assertThat(hosts(d)).hasSize(2);
    clock.forward(Duration.ofSeconds(1));
    assertThat(hosts(d)).containsExactly("127.0.0.1:7000", "127.0.0.2:7000", "127.0.0.3:7000");
  }

  @Test
  void connectFailureTriggersAnEarlyRefreshAtMostOncePerMinimumInterval() {
    DnsDiscovery d = discovery();
    answers.set(List.of("127.0.0.2"));
    d.onConnectFailure(Endpoint.parse("tcp -h 127.0.0.1 -p 7000"));
    assertThat(lookups).hasValue(1);
    clock.forward(Duration.ofSeconds(1));
    d.onConnectFailure(Endpoint.parse("tcp -h 127.0.0.1 -p 7000"));
    assertThat(lookups).hasValue(2);
    assertThat(hosts(d)).containsExactly("127.0.0.2:7000");
  }

  @Test
  void failedLookupKeepsTheLastKnownEndpoints() {
    DnsDiscovery d = discovery();
    answers.set(null);
    clock.forward(Duration.ofSeconds(30));
    assertThat(hosts(d)).containsExactly("127.0.0.1:7000", "127.0.0.2:7000");
  }

  @Test
  void unchangedAnswerKeepsTheSameListObjectSoNodeGroupsNeedNoRebuild() {
    DnsDiscovery d = discovery();
    List<Endpoint> before = d.endpoints();
    clock.forward(Duration.ofSeconds(30));
    assertThat(d.endpoints()).isSameAs(before);
  }

  /** A discovery whose resolver throws {@code thrown} while set, and whose events are kept. */
  private DnsDiscovery discovery(
      AtomicReference<RuntimeException> thrown, List<TetherEvent> events) {
    return new DnsDiscovery(
        Endpoint.parse("tcp -h nodes.test -p 7000"),
        host -> {
          lookups.incrementAndGet();
          if (thrown.get() != null) {
            throw thrown.get();
          }
          List<InetAddress> out = new java.util.ArrayList<>();
          for (String ip : answers.get()) {
            out.add(InetAddress.getByName(ip));
          }
          return out;
        },
        Duration.ofSeconds(30),
        Duration.ofSeconds(1),
        clock,
        clock,
        Duration.ofSeconds(90),
        events::add);
  }

  @Test
  void resolverThatThrowsAnUncheckedExceptionIsAskedAgainNextPeriod() {
    AtomicReference<RuntimeException> thrown = new AtomicReference<>();
    List<TetherEvent> events = new CopyOnWriteArrayList<>();
    DnsDiscovery d = discovery(thrown, events);
    thrown.set(new IllegalStateException("resolver bug"));

    clock.forward(Duration.ofSeconds(30));
    assertThat(hosts(d)).containsExactly("127.0.0.1:7000", "127.0.0.2:7000");
    thrown.set(null);
    answers.set(List.of("127.0.0.3"));
    clock.forward(Duration.ofSeconds(30));

    assertThat(lookups).hasValue(3);
    assertThat(hosts(d)).containsExactly("127.0.0.3:7000");
    assertThat(events)
        .extracting(TetherEvent::detail)
        .containsExactly(
            "nodes.test failed (java.lang.IllegalStateException: resolver bug); keeping the last"
                + " good list of 2 for up to 90000 ms");
  }

  @Test
  void emptyAnswerKeepsTheLastGoodListForItsTimeThenEmptiesItAndSaysSo() {
    List<TetherEvent> events = new CopyOnWriteArrayList<>();
    DnsDiscovery d = discovery(new AtomicReference<>(), events);
    AtomicInteger changes = new AtomicInteger();
    d.subscribe(changes::incrementAndGet);
    answers.set(List.of());

    clock.forward(Duration.ofSeconds(30));
    clock.forward(Duration.ofSeconds(30));
    clock.forward(Duration.ofSeconds(30));
    assertThat(hosts(d)).hasSize(2);
    assertThat(changes).hasValue(0);

    clock.forward(Duration.ofSeconds(30));
    assertThat(d.endpoints()).isEmpty();
    assertThat(changes).hasValue(1);
    assertThat(events)
        .allMatch(e -> e.kind() == TetherEvent.Kind.DISCOVERY_STALE)
        .extracting(TetherEvent::detail)
        .containsExactly(
            "nodes.test answered no address; keeping the last good list of 2 for up to 90000 ms",
            "nodes.test answered no address for 90000 ms; its last good list of 2 expired");
  }

  @Test
  void aLookupThatHangsHoldsUpNeitherCloseNorLaterConnectFailures() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch hanging = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean hang =
        new java.util.concurrent.atomic.AtomicBoolean();
    DnsDiscovery d =
        new DnsDiscovery(
            Endpoint.parse("tcp -h nodes.test -p 7000"),
            host -> {
              lookups.incrementAndGet();
              if (hang.get()) {
                hanging.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new UnknownHostException(host + ": interrupted");
                }
              }
              return List.of(InetAddress.getByName("127.0.0.1"));
            },
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            clock,
            clock);
    hang.set(true);
    clock.forward(Duration.ofSeconds(1));
    Endpoint failed = Endpoint.parse("tcp -h 127.0.0.1 -p 7000");
    java.util.concurrent.CompletableFuture<Void> stuck =
        java.util.concurrent.CompletableFuture.runAsync(() -> d.onConnectFailure(failed));
    try {
      assertThat(hanging.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      clock.forward(Duration.ofSeconds(1));

      java.util.concurrent.CompletableFuture.runAsync(() -> d.onConnectFailure(failed))
          .get(2, java.util.concurrent.TimeUnit.SECONDS);
      java.util.concurrent.CompletableFuture.runAsync(d::close)
          .get(2, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      release.countDown();
    }
    stuck.get(5, java.util.concurrent.TimeUnit.SECONDS);

    // The lookup that hung was the last: closed, nothing is resolved again.
    clock.forward(Duration.ofSeconds(60));
    assertThat(lookups).hasValue(2);
    assertThat(hosts(d)).containsExactly("127.0.0.1:7000");
  }
}
