package dev.tether.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.ConnectionLostException;
import dev.tether.EndpointSelection;
import dev.tether.Idempotency;
import dev.tether.InvocationTimeoutException;
import dev.tether.Proxy;
import dev.tether.Tether;
import dev.tether.spi.ClientWireProtocol;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wiring of another wire protocol into the runtime's connections: what the protocol proves of a
 * call (refused, lost before or after it was written, answered) decides under the at-most-once rule
 * exactly as on Tether's own connections, and its connections are keyed apart. The protocol is
 * scripted per server port; the servers are plain loopback sockets that accept and say nothing.
 */
@Timeout(30)
class ProtocolConnectionTest {
  /** What a scripted link does with each call sent to a port. */
  enum Script {
    ANSWER,
    REFUSE,
    LOSE_BEFORE_WRITTEN,
    LOSE_AFTER_WRITTEN,
    /** The link never has room: every call waits unwritten. */
    NO_ROOM
  }

  private final List<ServerSocket> listeners = new CopyOnWriteArrayList<>();
  private final Map<Integer, Script> scripts = new ConcurrentHashMap<>();
  private final Map<Integer, AtomicInteger> callsSeen = new ConcurrentHashMap<>();
  private final Tether tether = Tether.create();

  @AfterEach
  void stop() throws IOException {
    tether.close();
    for (ServerSocket l : listeners) {
      l.close();
    }
  }

  private int server(Script script) throws IOException {
    ServerSocket l = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    listeners.add(l);
    scripts.put(l.getLocalPort(), script);
    callsSeen.put(l.getLocalPort(), new AtomicInteger());
    return l.getLocalPort();
  }

  private Proxy proxyTo(int first, int second) {
    return tether
        .proxy("svc:tcp -h 127.0.0.1 -p " + first + ":tcp -h 127.0.0.1 -p " + second)
        .withEndpointSelection(EndpointSelection.ORDERED)
        .withWireProtocol(new ScriptedProtocol());
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void aRefusedCallRunsOnTheNextEndpointEvenWhenNotIdempotent() throws IOException {
    int a = server(Script.REFUSE);
    int b = server(Script.ANSWER);

    byte[] answer = proxyTo(a, b).invoke("op", new byte[0]);

    assertThat(text(answer)).isEqualTo("answered by " + b);
    assertThat(callsSeen.get(a)).hasValue(1);
  }

  @Test
  void aCallLostBeforeItWasWrittenRunsOnTheNextEndpointEvenWhenNotIdempotent() throws IOException {
    int a = server(Script.LOSE_BEFORE_WRITTEN);
    int b = server(Script.ANSWER);

    assertThat(text(proxyTo(a, b).invoke("op", new byte[0]))).isEqualTo("answered by " + b);
  }

  @Test
  void aNonIdempotentCallLostAfterItWasWrittenFailsSayingItMayHaveRun() throws IOException {
    int a = server(Script.LOSE_AFTER_WRITTEN);
    int b = server(Script.ANSWER);

    assertThatThrownBy(() -> proxyTo(a, b).invoke("op", new byte[0]))
        .isInstanceOfSatisfying(
            ConnectionLostException.class, e -> assertThat(e.mayHaveExecuted()).isTrue());
    assertThat(callsSeen.get(b)).hasValue(0);
  }

  @Test
  void anIdempotentCallLostAfterItWasWrittenRunsOnTheNextEndpoint() throws IOException {
    int a = server(Script.LOSE_AFTER_WRITTEN);
    int b = server(Script.ANSWER);

    byte[] answer = proxyTo(a, b).invoke("op", new byte[0], Idempotency.IDEMPOTENT);

    assertThat(text(answer)).isEqualTo("answered by " + b);
  }

  @Test
  void aProtocolsConnectionsAreKeyedApartFromTethersOwnAndSharedAmongItsCalls() throws IOException {
    int a = server(Script.ANSWER);
    ConnectionKey own = new ConnectionKey("tcp", null, "", null);
    assertThat(own.protocol()).isEmpty();
    assertThat(new ConnectionKey("tcp", null, "", null, "scripted")).isNotEqualTo(own);

    Proxy p = proxyTo(a, a);
    p.invoke("op", new byte[0]);
    p.withConnectionCached(false).invoke("op", new byte[0]);

    assertThat(tether.status().connections()).hasSize(1);
    assertThat(callsSeen.get(a)).hasValue(2);
  }

  @Test
  void aCallWhoseDeadlinePassesWhileItWaitsForRoomLeavesNothingForTheCloseToWaitFor()
      throws Exception {
    int a = server(Script.NO_ROOM);
    // A grace far longer than the close may take: only a call the connection still holds would
    // make the close wait for it.
    Tether runtime = Tether.builder().property("tether.close.grace", "60s").build();
    Proxy p =
        runtime
            .proxy("svc:tcp -h 127.0.0.1 -p " + a)
            .withWireProtocol(new ScriptedProtocol())
            .withInvocationTimeout(Duration.ofMillis(300));

    assertThatThrownBy(() -> p.invoke("op", new byte[0]))
        .isInstanceOf(InvocationTimeoutException.class)
        .hasMessageContaining("WAITING_FOR_SLOT");

    CompletableFuture.runAsync(runtime::close).get(10, TimeUnit.SECONDS);
    assertThat(callsSeen.get(a)).hasValue(0);
  }

  /** Answers, refuses or loses each call as its server's port is scripted to. */
  private final class ScriptedProtocol implements ClientWireProtocol {
    @Override
    public String name() {
      return "scripted";
    }

    @Override
    public Link open(Channel channel, Connection connection) {
      channel.pipeline().addLast(new ReadyOnActive(connection));
      return new ScriptedLink(connection);
    }
  }

  /** The scripted protocol has no opening of its own: ready once the socket connects. */
  private static final class ReadyOnActive extends ChannelInboundHandlerAdapter {
    private final ClientWireProtocol.Connection connection;

    ReadyOnActive(ClientWireProtocol.Connection connection) {
      this.connection = connection;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      connection.onReady("scripted");
      ctx.fireChannelActive();
    }
  }

  private final class ScriptedLink implements ClientWireProtocol.Link {
    private final int port;

    ScriptedLink(ClientWireProtocol.Connection connection) {
      String authority = connection.authority();
      this.port = Integer.parseInt(authority.substring(authority.lastIndexOf(':') + 1));
    }

    @Override
    public void send(ClientWireProtocol.Call call) {
      callsSeen.get(port).incrementAndGet();
      switch (scripts.get(port)) {
        case ANSWER -> {
          call.onWritten();
          call.onAnswer(("answered by " + port).getBytes(StandardCharsets.UTF_8));
        }
        case REFUSE -> call.onRefused("scripted refusal");
        case LOSE_BEFORE_WRITTEN -> call.onLost(new IOException("scripted loss before the write"));
        case LOSE_AFTER_WRITTEN -> {
          call.onWritten();
          call.onLost(new IOException("scripted loss after the write"));
        }
        case NO_ROOM -> throw new AssertionError("a call was sent to a link without room");
      }
    }

    @Override
    public boolean hasRoom() {
      return scripts.get(port) != Script.NO_ROOM;
    }

    @Override
    public void cancel(ClientWireProtocol.Call call) {}

    @Override
    public int activeCalls() {
      return 0;
    }
  }
}
