package dev.tether.grpc;

import static dev.tether.grpc.InteropService.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.LoadBalancing;
import dev.tether.Tether;
import dev.tether.observe.TetherEvent;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Outlier ejection over gRPC, against grpc-java's own servers: a node's gRPC statuses count as
 * Tether's answers do (the table in docs/guide.md, "gRPC"). A server failing around its services
 * (INTERNAL) is ejected on its streak, a service's unhandled failure (UNKNOWN) on standing out from
 * its peers, and a status the service chose (NOT_FOUND) not at all.
 */
@Timeout(90)
class TetherChannelOutlierTest {
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private final GrpcJavaPeers peers = new GrpcJavaPeers();
  private final CountingService sick = new CountingService("sick");
  private final CountingService a = new CountingService("a");
  private final CountingService b = new CountingService("b");
  private Tether tether;
  private ManagedChannel channel;
  private int sickPort;

  @AfterEach
  void stop() throws Exception {
    peers.close();
  }

  private int serve(CountingService service) throws IOException {
    return peers.serve(service.definition()).getPort();
  }

  /**
   * Round robin over the sick server and two good ones; the comparison with the peers decides after
   * ten answers, and an ejection outlasts the test.
   */
  private void start() throws IOException {
    sickPort = serve(sick);
    int aPort = serve(a);
    int bPort = serve(b);
    tether =
        peers.runtime(
            Tether.builder()
                .property("tether.cluster.ejection.failures", "5")
                .property("tether.cluster.ejection.minCalls", "10")
                .property("tether.cluster.ejection.outlierCalls", "10")
                .property("tether.cluster.ejection.base", "60s")
                .listener(events::add)
                .build());
    channel =
        peers.channel(
            TetherGrpc.channel(
                tether
                    .proxy(
                        "counting:tcp -h 127.0.0.1 -p "
                            + sickPort
                            + ":tcp -h 127.0.0.1 -p "
                            + aPort
                            + ":tcp -h 127.0.0.1 -p "
                            + bPort)
                    .withLoadBalancing(LoadBalancing.ROUND_ROBIN)));
  }

  /** The sick node's health; "none" before the group's first call made its nodes. */
  private String health() {
    return tether.status().nodes().stream()
        .filter(n -> n.endpoint().endsWith("-p " + sickPort))
        .findFirst()
        .map(n -> n.health())
        .orElse("none");
  }

  /** One idempotent call; null when it answered, else its status's code. */
  private Status.Code call() {
    try {
      ClientCalls.blockingUnaryCall(
          channel,
          CountingService.IDEMPOTENT_CALL,
          CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
          text("x"));
      return null;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  /** Calls until the sick node is out (at most {@code bound} calls); the codes of those failed. */
  private List<Status.Code> callUntilEjected(int bound) {
    List<Status.Code> failures = new ArrayList<>();
    for (int i = 0; i < bound && !health().equals("EJECTED"); i++) {
      Status.Code failed = call();
      if (failed != null) {
        failures.add(failed);
      }
    }
    return failures;
  }

  /** One server stream of {@code Spill}, read to its end; null when it ended OK, else its code. */
  private Status.Code stream() {
    try {
      ClientCalls.blockingServerStreamingCall(
              channel,
              CountingService.SPILL,
              CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
              text("x"))
          .forEachRemaining(m -> {});
      return null;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  @Test
  void aGrpcServerEndingEveryAcceptedStreamWithInternalIsEjectedAndStreamsStopFailing()
      throws Exception {
    sick.failWith = Status.INTERNAL.withDescription("the disk is gone");
    start();

    List<Status.Code> failures = new ArrayList<>();
    for (int i = 0; i < 60 && !health().equals("EJECTED"); i++) {
      Status.Code failed = stream();
      if (failed != null) {
        failures.add(failed);
      }
    }

    // Each stream opened well (its messages came) and only then ended with the server's fault.
    assertThat(health()).isEqualTo("EJECTED");
    assertThat(failures).hasSizeBetween(5, 8).containsOnly(Status.Code.INTERNAL);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.endpoint().endsWith("-p " + sickPort)
                                && e.detail().contains("in a row")));
    int sickStreams = sick.spills.get();
    for (int i = 0; i < 20; i++) {
      assertThat(stream()).as("stream %d after the ejection", i).isNull();
    }
    assertThat(sick.spills.get()).isEqualTo(sickStreams);
  }

  @Test
  void aGrpcServerAnsweringInternalToEveryCallIsEjectedAndCallsStopFailing() throws Exception {
    sick.failWith = Status.INTERNAL.withDescription("the disk is gone");
    start();

    List<Status.Code> failures = callUntilEjected(60);

    assertThat(health()).isEqualTo("EJECTED");
    assertThat(failures).hasSizeBetween(5, 8).containsOnly(Status.Code.INTERNAL);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.endpoint().endsWith("-p " + sickPort)
                                && e.detail().contains("in a row")));
    int sickCalls = sick.calls.get();
    for (int i = 0; i < 30; i++) {
      assertThat(call()).as("call %d after the ejection", i).isNull();
    }
    assertThat(sick.calls.get()).isEqualTo(sickCalls);
  }

  @Test
  void aGrpcServerAnsweringUnavailableToEveryCallIsEjectedWhileItsIdempotentCallsGoElsewhere()
      throws Exception {
    sick.failWith = Status.UNAVAILABLE.withDescription("overloaded");
    start();

    List<Status.Code> failures = callUntilEjected(60);

    // Each UNAVAILABLE counted against the sick node, and the call was retried on a good one.
    assertThat(health()).isEqualTo("EJECTED");
    assertThat(failures).isEmpty();
    assertThat(sick.calls.get()).isBetween(5, 8);
  }

  @Test
  void aGrpcServerWhoseServiceFailsUnknownAloneIsEjectedAsItStandsOutFromItsPeers()
      throws Exception {
    sick.failWith = Status.UNKNOWN.withDescription("NullPointerException");
    start();

    List<Status.Code> failures = callUntilEjected(90);

    assertThat(health()).isEqualTo("EJECTED");
    // Not on a streak of five: only once its ten answers could be compared with its peers'.
    assertThat(failures).hasSizeGreaterThanOrEqualTo(10).containsOnly(Status.Code.UNKNOWN);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                events.stream()
                    .anyMatch(
                        e ->
                            e.kind() == TetherEvent.Kind.NODE_EJECTED
                                && e.detail().contains("of its peers' last")));
  }

  @Test
  void aGrpcServerWhoseServiceAnswersNotFoundOrInvalidArgumentIsNotBlamed() throws Exception {
    sick.failWith = Status.NOT_FOUND.withDescription("no such account");
    start();

    List<Status.Code> failures = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      Status.Code failed = call();
      if (failed != null) {
        failures.add(failed);
      }
      if (i == 30) {
        sick.failWith = Status.INVALID_ARGUMENT.withDescription("bad account number");
      }
    }

    // Some twenty answers, each a failure of the caller's own: still in rotation.
    assertThat(failures)
        .hasSizeBetween(15, 25)
        .containsOnly(Status.Code.NOT_FOUND, Status.Code.INVALID_ARGUMENT);
    assertThat(health()).isEqualTo("ALIVE");
    assertThat(events).noneMatch(e -> e.kind() == TetherEvent.Kind.NODE_EJECTED);
  }
}
