package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tether.Closing;
import dev.tether.CollectingSubscriber;
import dev.tether.IncompatibleServerException;
import dev.tether.LiveConnections;
import dev.tether.LoopbackRelay;
import dev.tether.NumberedItems;
import dev.tether.Proxy;
import dev.tether.StreamLostException;
import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.protocol.FrameWriter;
import dev.tether.protocol.Welcome;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stream across the loss of its connection, over loopback: resumed through a reset with every
 * item once and in order and the service opened once; lost, with what was delivered, when the
 * server is gone; refused before it opens by a server that speaks an older protocol.
 */
class StreamResumeTest {
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private final List<NumberedItems> opened = new CopyOnWriteArrayList<>();
  private final List<TetherEvent> events = new CopyOnWriteArrayList<>();
  private TetherServer server;
  private Tether tether;
  private LoopbackRelay relay;

  private Proxy startFeed(String resumeWindow) {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .streamService("feed", NumberedItems.counting(opened))
            .build()
            .start();
    tether =
        Tether.builder()
            .listener(events::add)
            .property("tether.stream.resumeWindow", resumeWindow)
            .build();
    return tether.proxy(server.proxyString("feed"));
  }

  @AfterEach
  void stop() throws Exception {
    Closing.all(tether, relay, server);
  }

  /** Resets the connection under the stream (RST, not FIN), as a broken network would. */
  private void reset(Proxy proxy) {
    ClientConnection carrying = LiveConnections.stream(tether, proxy.connection());
    carrying.channel.config().setOption(ChannelOption.SO_LINGER, 0);
    carrying.channel.close().syncUninterruptibly();
  }

  @Test
  void resumesThroughAConnectionResetWhileTheServerKeepsProducing() throws Exception {
    Proxy feed = startFeed("10s");
    CollectingSubscriber subscriber = new CollectingSubscriber(100);
    feed.stream("count", "2000".getBytes()).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 100);

    reset(feed);
    subscriber.request(Long.MAX_VALUE); // the service goes on producing while the stream resumes

    subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(subscriber.numbers())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 2000).boxed().toList());
    assertThat(opened).hasSize(1);
    assertThat(opened.get(0).subscriptions()).isEqualTo(1);
    assertThat(events)
        .extracting(TetherEvent::kind)
        .contains(TetherEvent.Kind.STREAM_RESUMED)
        .doesNotContain(TetherEvent.Kind.STREAM_LOST);
  }

  @Test
  void streamMovesToTheReplacementWhenItsConnectionIsRotatedAndLosesNothing() throws Exception {
    Proxy feed = startFeed("10s");
    CollectingSubscriber subscriber = new CollectingSubscriber(100);
    feed.stream("count", "2000".getBytes()).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 100);
    ClientConnection aged = LiveConnections.stream(tether, feed.connection());

    aged.host.onConnectionAged(aged, "the test aged it"); // as the client's max age would
    await()
        .atMost(PATIENCE)
        .until(() -> events.stream().anyMatch(e -> e.kind() == TetherEvent.Kind.STREAM_RESUMED));
    subscriber.request(Long.MAX_VALUE);

    subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(subscriber.numbers())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 2000).boxed().toList());
    assertThat(opened).hasSize(1);
    assertThat(events).extracting(TetherEvent::kind).doesNotContain(TetherEvent.Kind.STREAM_LOST);
    await()
        .atMost(PATIENCE)
        .until(() -> !aged.channel.isOpen()); // the aged connection did not wait for the stream
  }

  @Test
  void serverGoneEndsTheStreamWithWhatWasDelivered() {
    Proxy feed = startFeed("10s");
    CollectingSubscriber subscriber = new CollectingSubscriber(10);
    feed.stream("count", "-1".getBytes()).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 10);

    server.close();

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            StreamLostException.class,
            lost -> assertThat(lost.delivered()).isEqualTo(subscriber.items().size()));
  }

  @Test
  void unreachableServerLosesTheStreamAtTheEndOfTheResumeWindow() throws Exception {
    startFeed("300ms");
    relay = new LoopbackRelay(server.endpoints().get(0).port());
    Proxy feed = tether.proxy("feed:tcp -h 127.0.0.1 -p " + relay.port());
    CollectingSubscriber subscriber = new CollectingSubscriber(5);
    feed.stream("count", "-1".getBytes()).subscribe(subscriber);
    await().atMost(PATIENCE).until(() -> subscriber.items().size() == 5);

    // The path goes, not the server: from this moment every resume attempt finds nothing
    // listening, where closing the server after a reset let the first one race its close.
    relay.cut();

    assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            StreamLostException.class,
            lost -> {
              assertThat(lost.delivered()).isEqualTo(5);
              assertThat(lost).hasMessageContaining("not resumed within 300 ms");
            });
  }

  @Test
  void olderServerRefusesAStreamOpenWithIncompatibleServerException() throws Exception {
    try (ServerSocket oldServer = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      Thread peer = new Thread(() -> speakProtocol1Dot1(oldServer), "protocol-1.1-server");
      peer.setDaemon(true);
      peer.start();
      tether = Tether.create();
      Proxy feed = tether.proxy("feed:tcp -h 127.0.0.1 -p " + oldServer.getLocalPort());
      CollectingSubscriber subscriber = CollectingSubscriber.unbounded();

      feed.stream("count", "1".getBytes()).subscribe(subscriber);

      assertThatThrownBy(() -> subscriber.done().get(PATIENCE.toSeconds(), TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(IncompatibleServerException.class)
          .hasMessageContaining("protocol 1.1");
    }
  }

  /** Answers one client's preface and HELLO as a 1.1 server would, then reads until it closes. */
  private static void speakProtocol1Dot1(ServerSocket listener) {
    try (Socket s = listener.accept()) {
      s.setSoTimeout(10_000);
      InputStream in = s.getInputStream();
      in.readNBytes(8);
      ByteBuf out = Unpooled.buffer();
      FrameWriter.writePreface(out);
      out.setByte(5, 1); // minor 1
      FrameWriter.encode(new Welcome("old", "1.1", 0, 1 << 20, 100, "", List.of()), out);
      s.getOutputStream().write(out.array(), out.readerIndex(), out.readableBytes());
      while (in.read() >= 0) {
        // a 1.1 server never sees a stream frame from this client; it waits for the close
      }
    } catch (Exception e) {
      // the test closed the listener or the client went away
    }
  }
}
