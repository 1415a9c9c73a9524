package dev.tether.virtualthreads;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ExecutionMode;
import dev.tether.Proxy;
import dev.tether.RawService;
import dev.tether.Tether;
import dev.tether.TetherServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * Blocking callers on virtual threads, against a VIRTUAL_THREADS server whose services block too,
 * under a JFR recording of every {@code jdk.VirtualThreadPinned} event (threshold 0): no pinned
 * park may have a frame of Tether's code on its stack. A virtual thread that parks in a class
 * initializer, which pins on every Java so far, shows that the recording does see pinning.
 */
class PinningTest {
  private static final String TETHER = "dev.tether.";
  private static final String THIS_TEST = PinningTest.class.getPackageName() + ".";
  private static final int CALLS = 300;

  /** A typed service whose calls wait for one another, as the raw one's do. */
  public interface Greeter {
    String greet(String name);
  }

  /** Parks in its initializer: the one pinned park this test expects to see. */
  static final class ParksWhileInitializing {
    static {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }

    static void touch() {}
  }

  @Test
  void blockingCallersAndServicesOnVirtualThreadsPinNoCarrierInTethersCode() throws Exception {
    CountDownLatch[] rawArrived = {null};
    CountDownLatch[] typedArrived = {null};
    RawService raw =
        (operation, payload, context) -> {
          awaitAll(rawArrived[0]);
          return payload;
        };
    Greeter greeter =
        name -> {
          awaitAll(typedArrived[0]);
          return "hello " + name;
        };
    List<RecordedEvent> pinned;
    try (TetherServer server =
            TetherServer.builder()
                .endpoints("tcp -h 127.0.0.1 -p 0")
                .service("raw", raw)
                .service("greeter", Greeter.class, greeter)
                .executionMode(ExecutionMode.VIRTUAL_THREADS)
                .build()
                .start();
        Tether tether = Tether.create();
        Recording recording = new Recording()) {
      Proxy proxy = tether.proxy(server.proxyString("raw"));
      Greeter typed = tether.proxy(server.proxyString("greeter")).as(Greeter.class);
      // The first round loads and initializes the classes of the path; a virtual thread that waits
      // for another to finish loading or initializing a class is pinned by the JVM, whoever's class
      // it is (JEP 491's remaining case), once per class. The recorded round is the steady state.
      callRound(proxy, typed, rawArrived, typedArrived);
      recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
      recording.start();

      callRound(proxy, typed, rawArrived, typedArrived);
      OnVirtualThreads.runAtOnce(
          1,
          i -> {
            ParksWhileInitializing.touch();
            return i;
          },
          10);

      recording.stop();
      pinned = events(recording);
    }

    assertThat(pinned)
        .as("the recording sees a pinned park")
        .anyMatch(e -> hasFrame(e, ParksWhileInitializing.class.getName()));
    List<RecordedEvent> inTether = pinned.stream().filter(PinningTest::hasTetherFrame).toList();
    assertThat(inTether)
        .as("pinned with Tether's code on the stack:%n%s", describe(inTether))
        .isEmpty();
  }

  /**
   * CALLS raw and CALLS typed blocking calls, each kind all at once, every one on a virtual thread.
   */
  private static void callRound(
      Proxy proxy, Greeter typed, CountDownLatch[] rawArrived, CountDownLatch[] typedArrived)
      throws Exception {
    rawArrived[0] = new CountDownLatch(CALLS);
    typedArrived[0] = new CountDownLatch(CALLS);
    List<byte[]> echoed =
        OnVirtualThreads.runAtOnce(CALLS, i -> proxy.invoke("echo", new byte[] {(byte) i}), 30);
    List<String> greeted = OnVirtualThreads.runAtOnce(CALLS, i -> typed.greet("n" + i), 30);
    assertThat(echoed).hasSize(CALLS).allSatisfy(b -> assertThat(b).hasSize(1));
    assertThat(greeted).hasSize(CALLS).allSatisfy(g -> assertThat(g).startsWith("hello n"));
  }

  private static List<RecordedEvent> events(Recording recording) throws java.io.IOException {
    Path file = Files.createTempFile("pinning", ".jfr");
    try {
      recording.dump(file);
      return RecordingFile.readAllEvents(file);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static void awaitAll(CountDownLatch arrived) {
    arrived.countDown();
    try {
      if (!arrived.await(20, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the calls did not run at once");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the other calls", e);
    }
  }

  private static boolean hasFrame(RecordedEvent event, String typeName) {
    return frames(event).stream().anyMatch(f -> f.getMethod().getType().getName().equals(typeName));
  }

  private static boolean hasTetherFrame(RecordedEvent event) {
    return frames(event).stream()
        .map(f -> f.getMethod().getType().getName())
        .anyMatch(type -> type.startsWith(TETHER) && !type.startsWith(THIS_TEST));
  }

  private static List<RecordedFrame> frames(RecordedEvent event) {
    return event.getStackTrace() == null ? List.of() : event.getStackTrace().getFrames();
  }

  private static String describe(List<RecordedEvent> events) {
    return events.stream()
        .map(
            e ->
                frames(e).stream()
                    .map(
                        f ->
                            "  "
                                + f.getMethod().getType().getName()
                                + "."
                                + f.getMethod().getName()
                                + ":"
                                + f.getLineNumber())
                    .collect(Collectors.joining("\n")))
        .collect(Collectors.joining("\n---\n"));
  }
}
